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
      // One match each; "loan" is listed by b alone, "mortgage" by a and c.
      RouteDecision d = routeTurn("a mortgage or a loan?", List.of(a, b, c), turn);
      assertEquals("b", d.adapterId(), d.explanation());
      assertEquals(RouteDecision.Reason.KEYWORDS_TIE_BY_RARITY, d.reason());
    }
  }

  /** A broad, honest adapter: 30 banking keywords, 2,000 micro-units per 1k tokens. */
  private static final GateCandidate BROAD =
      new GateCandidate(
          "broad",
          "1.0.0",
          List.of(
              "account",
              "bank",
              "deposit",
              "withdrawal",
              "loan",
              "mortgage",
              "rate",
              "credit",
              "debit",
              "savings",
              "checking",
              "interest",
              "refinance",
              "overdraft",
              "transfer",
              "wire",
              "branch",
              "atm",
              "card",
              "statement",
              "balance",
              "fee",
              "escrow",
              "lien",
              "apr",
              "cd",
              "ira",
              "heloc",
              "amortization",
              "underwriting"),
          "USD",
          2_000);

  @Test
  void route_aShortListCreator_doesNotOutscoreABroadAdapterOnTheSameMatches() {
    String prompt = "What is the current mortgage rate?";
    GateCandidate dearShort =
        new GateCandidate("short", "1.0.0", List.of("mortgage", "rate"), "USD", 200_000);
    for (long turn = 0; turn < 4; turn++) {
      RouteDecision d = routeTurn(prompt, List.of(dearShort, BROAD), turn);
      assertEquals("broad", d.adapterId(), d.explanation());
      assertEquals(RouteDecision.Reason.KEYWORDS_TIE_BY_PRICE, d.reason());
    }
    // The old score: 2/√2 = 1.41 for the short list against 2/√30 = 0.37 for the broad one.
    // The same list, cheaper, wins on price: the client pays less for an equal match.
    GateCandidate cheapShort =
        new GateCandidate("short", "1.0.0", List.of("mortgage", "rate"), "USD", 1_000);
    assertEquals("short", routeTurn(prompt, List.of(cheapShort, BROAD), 0).adapterId());
  }

  @Test
  void route_aStuffingCreator_gainsNothingOnTheBroadAdaptersPrompts() {
    // The broad adapter's whole list and 34 more words, priced higher.
    List<String> stuffed = new java.util.ArrayList<>(BROAD.keywords());
    stuffed.addAll(STUFFED.subList(0, 34));
    GateCandidate stuffer = new GateCandidate("stuffer", "1.0.0", stuffed, "USD", 50_000);
    List<GateCandidate> market = List.of(stuffer, BROAD);
    for (String prompt :
        List.of(
            "What is the current mortgage rate?",
            "Can I refinance my loan with a lower interest rate?",
            "How do I wire a transfer from my savings account?",
            "Is there an overdraft fee on checking?")) {
      for (long turn = 0; turn < 3; turn++) {
        RouteDecision d = routeTurn(prompt, market, turn);
        assertEquals("broad", d.adapterId(), prompt + ": " + d.explanation());
      }
    }
  }

  @Test
  void route_theScore_doesNotDependOnTheListsLength() {
    List<String> many = new java.util.ArrayList<>(List.of("escrow"));
    many.addAll(BROAD.keywords().subList(0, 15)); // 16 keywords, none in the prompt but escrow
    GateCandidate two = new GateCandidate("two", "1.0.0", List.of("escrow", "zzz"), "USD", 10);
    GateCandidate sixteen = new GateCandidate("sixteen", "1.0.0", many, "USD", 10);
    RouteDecision first = routeTurn("escrow?", List.of(two, sixteen), 0);
    RouteDecision second = routeTurn("escrow?", List.of(two, sixteen), 1);
    // Equal scores and prices: they take turns.
    assertEquals(RouteDecision.Reason.KEYWORDS_TIE_BY_ROTATION, first.reason());
    assertTrue(!first.adapterId().equals(second.adapterId()));
  }

  @Test
  void route_withinOneMatch_theLowerPriceWins_aClearLeadWinsAtAnyPrice() {
    GateCandidate dear =
        new GateCandidate("dear", "1.0.0", List.of("mortgage", "escrow", "lien"), "USD", 9_000);
    GateCandidate cheap =
        new GateCandidate("cheap", "1.0.0", List.of("mortgage", "escrow"), "USD", 1_000);
    // Two matches each, the same keywords: a tie, the cheaper wins.
    assertEquals("cheap", routeTurn("mortgage escrow", List.of(dear, cheap), 0).adapterId());
    // Three matches against two: within one match, a near tie, and the cheaper still wins.
    RouteDecision d = routeTurn("mortgage escrow lien", List.of(dear, cheap), 0);
    assertEquals("cheap", d.adapterId());
    assertEquals(RouteDecision.Reason.KEYWORDS_TIE_BY_PRICE, d.reason());
    // Three against one is a clear lead: the higher score wins whatever the price.
    GateCandidate one = new GateCandidate("one", "1.0.0", List.of("mortgage"), "USD", 1);
    RouteDecision lead = routeTurn("mortgage escrow lien", List.of(dear, one), 0);
    assertEquals("dear", lead.adapterId());
    assertEquals(RouteDecision.Reason.KEYWORDS, lead.reason());
  }

  @Test
  void route_tie_goesToTheLowerPrice_inOneCurrency() {
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
  void route_aSquatterStuffingSixtyFourCommonWords_winsNoOffTopicPrompt_andNoneAtAHigherPrice() {
    assertEquals(64, STUFFED.size());
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
    GateCandidate banking = priced(BANKING, 2_000);
    GateCandidate investment = priced(INVESTMENT, 2_000);
    // Registered first, so it would win every tie that reaches rotation.
    List<GateCandidate> dearer =
        List.of(new GateCandidate("squatter", "1.0.0", STUFFED, "USD", 3_000), banking, investment);
    assertEquals(List.of(), squatterWins(prompts, dearer), "priced above the focused adapters");
    // At their price it wins only the prompts where it matches more of the words, and none of the
    // off-topic ones: one match among more than 16 keywords chooses nothing.
    List<GateCandidate> level =
        List.of(new GateCandidate("squatter", "1.0.0", STUFFED, "USD", 2_000), banking, investment);
    List<String> won = squatterWins(prompts, level);
    assertEquals(4, won.size(), won.toString());
    assertTrue(won.stream().allMatch(p -> prompts.indexOf(p) < 6), won.toString());
    for (String offTopic : prompts.subList(6, 10)) {
      assertEquals("shared", StepGate.route(offTopic, level, "shared").adapterId(), offTopic);
    }
  }

  private static GateCandidate priced(GateCandidate c, long micros) {
    return new GateCandidate(c.adapterId(), c.version(), c.keywords(), "USD", micros);
  }

  private static List<String> squatterWins(List<String> prompts, List<GateCandidate> market) {
    return prompts.stream()
        .filter(p -> StepGate.route(p, market, "shared").adapterId().equals("squatter"))
        .toList();
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
