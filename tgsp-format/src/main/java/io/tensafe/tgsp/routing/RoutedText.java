package io.tensafe.tgsp.routing;

/**
 * One text the step-gate may route on, in the order it tries them.
 *
 * @param label what the text is, for the decision's explanation (e.g. "the latest user message")
 * @param text the text; any length (the gate reads its first {@link StepGate#MAX_ROUTED_CHARS})
 */
public record RoutedText(String label, String text) {}
