package io.tensafe.marketplace.apikey;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an {@link ApiKeyAuthenticated} endpoint whose every successful answer passes the gateway's
 * admission, whose database call checks the key again: {@link ApiKeyFilter} may then take the key
 * from {@link RememberedKeys} instead of reading it, and {@link RememberedKeyErrors} reads it
 * before any other error answer leaves, so that a revoked key is still answered 401 and nothing
 * else.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface KeyConfirmedAtAdmission {}
