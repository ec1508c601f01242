/** The private-mode client runtime (ADR 0017). */
package io.tensafe.client;
