package io.tensafe.marketplace.validation;

import static java.lang.annotation.ElementType.ANNOTATION_TYPE;
import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.TYPE_USE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.constraints.Pattern;
import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * A public id of the marketplace: an adapter id, a fleet id, a node name. 1 to 64 characters of
 * {@code a-z}, {@code 0-9}, {@code .}, {@code _} and {@code -}, starting with a letter or digit
 * ({@value #REGEX}), the same rule as TGSP manifests. Null passes (add {@code @NotNull}).
 */
@Pattern(regexp = PublicId.REGEX)
@Constraint(validatedBy = {})
@Target({FIELD, METHOD, PARAMETER, TYPE_USE, ANNOTATION_TYPE})
@Retention(RUNTIME)
@Documented
public @interface PublicId {
  /** The pattern every public id matches. */
  String REGEX = "[a-z0-9][a-z0-9._-]{0,63}";

  String message() default "must be a public id (" + REGEX + ")";

  Class<?>[] groups() default {};

  Class<? extends Payload>[] payload() default {};
}
