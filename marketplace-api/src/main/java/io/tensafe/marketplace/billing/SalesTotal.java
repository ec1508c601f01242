package io.tensafe.marketplace.billing;

/** Totals of a sales report in one currency; they equal the sums of its lines exactly. */
public record SalesTotal(
    String currency, long requests, long amountMicros, long creatorMicros, long platformMicros) {}
