package io.tensafe.marketplace.health;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Runs {@link HealthTest} against the packaged application, the same jar ./tensafe up starts. */
@QuarkusIntegrationTest
class HealthIT extends HealthTest {}
