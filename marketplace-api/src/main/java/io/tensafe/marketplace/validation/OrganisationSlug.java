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
 * A client organisation's slug: 2 to 63 characters of {@code a-z}, {@code 0-9} and {@code -},
 * starting with a letter or digit ({@value #REGEX}). Null passes (add {@code @NotNull}).
 */
@Pattern(regexp = OrganisationSlug.REGEX)
@Constraint(validatedBy = {})
@Target({FIELD, METHOD, PARAMETER, TYPE_USE, ANNOTATION_TYPE})
@Retention(RUNTIME)
@Documented
public @interface OrganisationSlug {
  /** The pattern every organisation slug matches. */
  String REGEX = "[a-z0-9][a-z0-9-]{1,62}";

  String message() default "must be an organisation slug (" + REGEX + ")";

  Class<?>[] groups() default {};

  Class<? extends Payload>[] payload() default {};
}
