package io.tensafe.marketplace.testing;

import static io.restassured.RestAssured.given;

import io.restassured.response.Response;

/** The REST calls the tests make most, as one line each. */
public final class Calls {
  private Calls() {}

  /** POST {@code body} as JSON to {@code path} with the bearer {@code token}. */
  public static Response postJson(String token, String path, Object body) {
    return given().auth().oauth2(token).contentType("application/json").body(body).post(path);
  }

  /** GET {@code path} with the bearer {@code token}. */
  public static Response getAs(String token, String path) {
    return given().auth().oauth2(token).get(path);
  }
}
