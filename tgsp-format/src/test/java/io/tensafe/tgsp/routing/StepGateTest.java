package io.tensafe.tgsp.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StepGateTest {
  /** The prototype's two experts and their keywords, in its registration order. */
  private static final GateCandidate BANKING =
      new GateCandidate(
          "banking",
          "1.0.0",
          List.of(
              "bank",
              "deposit",
              "loan",
              "mortgage",
              "credit",
              "savings",
              "checking",
              "interest rate",
              "refinance"));

  private static final GateCandidate INVESTMENT =
      new GateCandidate(
          "investment",
          "2.1.0",
          List.of(
              "invest",
              "portfolio",
              "stock",
              "bond",
              "etf",
              "dividend",
              "market",
              "allocation",
              "risk"));

  private static final List<GateCandidate> BOTH = List.of(BANKING, INVESTMENT);

  private static String route(String prompt) {
    return StepGate.route(prompt, BOTH, "shared").adapterId();
  }

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "How do I apply for a mortgage?|banking",
        "What stocks should I buy?|investment",
        "Tell me about deposit insurance|banking",
        "How does portfolio diversification work?|investment",
        "Hello, how are you?|shared"
      })
  void route_prototypeTestVectors(String prompt, String expected) {
    assertEquals(expected, route(prompt));
  }

  @ParameterizedTest(name = "\"{0}\" does not match inside a word")
  @CsvSource(
      delimiter = '|',
      value = {
        "Please investigate the outage|shared",
        "The embankment collapsed|shared",
        "An asterisk marks the footnote|shared",
        "I shop at the supermarket|shared",
        "A vagabond walked by|shared"
      })
  void route_prototypeSubstringBugs_doNotMatch(String prompt, String expected) {
    assertEquals(expected, route(prompt));
  }

  @Test
  void route_strictMaximumOfDistinctKeywordsWins() {
    RouteDecision decision =
        StepGate.route("My bank sells stock, bonds and ETFs to invest in", BOTH, "shared");
    assertEquals("investment", decision.adapterId());
    assertEquals("2.1.0", decision.version());
    assertEquals(RouteDecision.Reason.KEYWORDS, decision.reason());
    assertEquals(List.of("invest", "stock", "bond", "etf"), decision.matched());
    assertEquals(
        "4 keyword(s) matched in the prompt: invest, stock, bond, etf", decision.explanation());
  }

  @Test
  void route_repeatsCountOnce() {
    RouteDecision decision =
        StepGate.route("stock stock stock stock, or a loan and a mortgage?", BOTH, "shared");
    assertEquals("banking", decision.adapterId());
    assertEquals(2, decision.score());
  }

  private static RouteDecision routeTurn(String prompt, List<GateCandidate> candidates, long turn) {
    return StepGate.route(
        List.of(new RoutedText("the prompt", prompt)), candidates, "shared", turn);
  }

  @Test
  void route_tieOfEqualAdapters_takesTurns_soTheNewerWinsHalf() {
    RouteDecision first = routeTurn("A loan to buy a stock", BOTH, 0);
    assertEquals("banking", first.adapterId());
    assertEquals(RouteDecision.Reason.KEYWORDS_TIE_BY_ROTATION, first.reason());
    assertTrue(first.explanation().contains("take turns"), first.explanation());
    assertEquals("investment", routeTurn("A loan to buy a stock", BOTH, 1).adapterId());
    int newer = 0;
    for (long turn = 0; turn < 100; turn++) {
      if (routeTurn("mortgage", List.of(BANKING, sameKeywords("newer")), turn)
          .adapterId()
          .equals("newer")) {
        newer++;
      }
    }
    assertEquals(50, newer);
  }

  private static GateCandidate sameKeywords(String id) {
    return new GateCandidate(id, "1.0.0", BANKING.keywords());
  }

  @Test
  void route_tie_goesFirstToTheRarestMatchedKeywords() {
    GateCandidate a = new GateCandidate("a", "1.0.0", List.of("mortgage", "escrow"));
    GateCandidate b = new GateCandidate("b", "1.0.0", List.of("loan", "lien"));
    GateCandidate c = new GateCandidate("c", "1.0.0", List.of("mortgage", "title"));
    for (long turn = 0; turn < 3; turn++) {
      RouteDecision d = routeTurn("a mortgage or a loan?", List.of(a, b, c), turn);
      assertEquals("b", d.adapterId(), d.explanation());
      assertEquals(RouteDecision.Reason.KEYWORDS_TIE_BY_RARITY, d.reason());
    }
  }

  @Test
  void route_tieAfterRarity_goesToTheLowerPrice_inOneCurrency() {
    GateCandidate dear = new GateCandidate("dear", "1.0.0", List.of("mortgage"), "USD", 3000);
    GateCandidate cheap = new GateCandidate("cheap", "1.0.0", List.of("mortgage"), "USD", 2000);
    for (long turn = 0; turn < 3; turn++) {
      RouteDecision d = routeTurn("mortgage?", List.of(dear, cheap), turn);
      assertEquals("cheap", d.adapterId());
      assertEquals(RouteDecision.Reason.KEYWORDS_TIE_BY_PRICE, d.reason());
    }
    // Prices in different currencies do not compare: they take turns.
    GateCandidate euro = new GateCandidate("euro", "1.0.0", List.of("mortgage"), "EUR", 1);
    assertEquals(
        RouteDecision.Reason.KEYWORDS_TIE_BY_ROTATION,
        routeTurn("mortgage?", List.of(dear, euro), 0).reason());
  }

  @Test
  void route_latestUserTurnFirst_thenEarlierTurns_thenSystem() {
    List<RoutedText> chat =
        List.of(
            new RoutedText("the latest user message", "and mortgage?"),
            new RoutedText("the user message 1 before the latest", "dividend stocks"));
    RouteDecision d = StepGate.route(chat, BOTH, "shared", 0);
    assertEquals("banking", d.adapterId());
    assertTrue(d.explanation().contains("in the latest user message"), d.explanation());
    List<RoutedText> latestSaysNothing =
        List.of(
            new RoutedText("the latest user message", "and what else?"),
            new RoutedText("the user message 1 before the latest", "dividend stocks"),
            new RoutedText("a system message", "You answer mortgage questions."));
    RouteDecision earlier = StepGate.route(latestSaysNothing, BOTH, "shared", 0);
    assertEquals("investment", earlier.adapterId());
    assertTrue(earlier.explanation().contains("1 before the latest"), earlier.explanation());
    List<RoutedText> onlySystem =
        List.of(
            new RoutedText("the latest user message", "hello"),
            new RoutedText("a system message", "You answer mortgage questions."));
    assertEquals("banking", StepGate.route(onlySystem, BOTH, "shared", 0).adapterId());
  }

  @ParameterizedTest(name = "\"{0}\" with keyword \"{1}\" -> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "我想了解房贷利率|房贷|true",
        "我想了解存款利率|房贷|false",
        "住宅ローンの金利を教えて|住宅ローン|true",
        "住宅ローンの金利を教えて|住宅 ローン|true",
        "ローンの金利を教えて|住宅ローン|false",
        "用iPhone申请房贷|iphone|true",
        "ฉันต้องการสินเชื่อบ้าน|สินเชื่อ|true",
        "ฉันต้องการเงินฝาก|สินเชื่อ|false",
        "investigate this|invest|false"
      })
  void route_scriptsWithoutSpaces_matchKeywordsInsideRuns(
      String prompt, String keyword, boolean matches) {
    GateCandidate c = new GateCandidate("local", "1.0.0", List.of(keyword));
    assertEquals(
        matches ? "local" : "shared", StepGate.route(prompt, List.of(c), "shared").adapterId());
  }

  @Test
  void route_phrase_matchesOnlyAsConsecutiveWords() {
    assertEquals("banking", route("Will the INTEREST-RATE rise?"));
    assertEquals("banking", route("what are interest rates now"));
    assertEquals("shared", route("interest in a good rate"));
  }

  @Test
  void route_caseAndPunctuation_doNotMatter() {
    assertEquals("banking", route("MORTGAGE!!!"));
    assertEquals("investment", route("(Dividend)"));
  }

  @Test
  void route_onlyAllowedCandidates_otherwiseDefault() {
    RouteDecision decision =
        StepGate.route("What stocks should I buy?", List.of(BANKING), "shared");
    assertEquals("shared", decision.adapterId());
    assertEquals(RouteDecision.Reason.NO_MATCH, decision.reason());
    assertEquals(null, decision.version());
    assertEquals(0, decision.score());
  }

  @Test
  void route_emptyPromptOrBlankKeywords_goToDefault() {
    assertEquals("shared", route(""));
    GateCandidate blank = new GateCandidate("blank", "1.0.0", List.of(" ", "", "--"));
    assertEquals(
        "shared", StepGate.route("anything -- at all", List.of(blank), "shared").adapterId());
  }

  @Test
  void words_splitsOnEverythingButLettersAndDigits() {
    assertEquals(List.of("é", "crédit", "2025", "x1"), StepGate.words("É crédit—2025, x1?"));
  }

  /** 64 words common in prompts of every domain, none a stop-word, as a squatter would list. */
  private static final List<String> STUFFED =
      List.of(
          "money",
          "price",
          "account",
          "time",
          "work",
          "buy",
          "pay",
          "year",
          "people",
          "apply",
          "plan",
          "cost",
          "rate",
          "question",
          "problem",
          "data",
          "business",
          "home",
          "family",
          "service",
          "system",
          "information",
          "company",
          "number",
          "order",
          "change",
          "life",
          "day",
          "week",
          "month",
          "market",
          "bank",
          "stock",
          "loan",
          "mortgage",
          "deposit",
          "portfolio",
          "insurance",
          "tax",
          "credit",
          "card",
          "save",
          "spend",
          "cash",
          "fund",
          "income",
          "debt",
          "budget",
          "risk",
          "profit",
          "sale",
          "deal",
          "offer",
          "shop",
          "store",
          "product",
          "job",
          "house",
          "car",
          "travel",
          "health",
          "school",
          "food",
          "water");

  @Test
  void route_aSquatterStuffingSixtyFourCommonWords_losesTheFocusedAdapters_andMostPrompts() {
    assertEquals(64, STUFFED.size());
    GateCandidate squatter = new GateCandidate("squatter", "1.0.0", STUFFED);
    // Registered first, so it would win every tie.
    List<GateCandidate> market = List.of(squatter, BANKING, INVESTMENT);
    List<String> prompts =
        List.of(
            "How do I apply for a mortgage?",
            "What stocks should I buy?",
            "Tell me about deposit insurance",
            "How does portfolio diversification work?",
            "Should I refinance my loan at a lower interest rate?",
            "Which dividend stock fits a low risk portfolio?",
            "Hello, how are you?",
            "What time is it in Tokyo?",
            "Write a poem about water",
            "My car needs a new battery");
    long squatterWins =
        prompts.stream()
            .filter(p -> StepGate.route(p, market, "shared").adapterId().equals("squatter"))
            .count();
    assertEquals(0, squatterWins, "the squatter won some of " + prompts);
    // Counting distinct matches, as before (the squatter, registered first, wins ties too).
    long byCount =
        prompts.stream()
            .filter(
                p -> {
                  List<String> words = StepGate.words(p);
                  int own = StepGate.matchedKeywords(words, STUFFED).size();
                  int others =
                      Math.max(
                          StepGate.matchedKeywords(words, BANKING.keywords()).size(),
                          StepGate.matchedKeywords(words, INVESTMENT.keywords()).size());
                  return own > 0 && own >= others;
                })
            .count();
    assertEquals(7, byCount, "the old rule gave the squatter 7 of the 10");
  }

  @Test
  void route_stopWordKeywords_neverCount() {
    GateCandidate stop =
        new GateCandidate("stop", "1.0.0", List.of("what", "current", "is the", "mortgage"));
    RouteDecision d =
        StepGate.route("What is the current mortgage rate?", List.of(stop, BANKING), "shared");
    // "stop" counts only "mortgage" (1 of 1), banking "mortgage" and "interest rate"? No: "rate"
    // alone is not the phrase. Both match one keyword; stop's list is shorter.
    assertEquals(List.of("mortgage"), d.matched());
    assertTrue(StopWords.isStopKeyword("is the"));
    assertTrue(!StopWords.isStopKeyword("interest rate"));
  }
}
