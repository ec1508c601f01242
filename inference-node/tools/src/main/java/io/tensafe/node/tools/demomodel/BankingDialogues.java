package io.tensafe.node.tools.demomodel;

import java.util.ArrayList;
import java.util.List;

/**
 * The demo adapter's training slice: templated questions about mortgages, loans, deposits and
 * accounts, each with a plain banking answer. Written by this class, not taken from a corpus, so
 * that the adapter's effect reads at a glance: the base model answers in the King James style, the
 * adapter in a bank's. Every question form is asked of every product; the same call always returns
 * the same list.
 */
final class BankingDialogues {
  /** One user question and the assistant's answer. */
  record Dialogue(String question, String answer) {}

  /**
   * A product the bank offers.
   *
   * @param name as asked about ("a mortgage" without its article)
   * @param article "a" or "an"
   * @param documents what an application needs
   * @param rate its interest rate, in words
   * @param term how long it runs
   * @param note one more sentence about it
   */
  private record Product(
      String name, String article, String documents, String rate, String term, String note) {}

  private static final List<Product> PRODUCTS =
      List.of(
          new Product(
              "mortgage",
              "a",
              "proof of income, two recent bank statements and a valid ID",
              "a fixed rate of 5.2 percent a year",
              "15 to 30 years",
              "A down payment of at least ten percent lowers your monthly payment."),
          new Product(
              "home loan",
              "a",
              "proof of income, the purchase contract and a valid ID",
              "a fixed rate of 5.2 percent a year",
              "15 to 30 years",
              "The home secures the loan until it is paid off."),
          new Product(
              "personal loan",
              "a",
              "proof of income and a valid ID",
              "a fixed rate of 8.9 percent a year",
              "one to five years",
              "You can borrow up to 40,000 dollars without collateral."),
          new Product(
              "car loan",
              "a",
              "proof of income, the dealer's invoice and a valid ID",
              "a fixed rate of 6.4 percent a year",
              "three to seven years",
              "The car secures the loan, and you may repay it early without a fee."),
          new Product(
              "savings account",
              "a",
              "a valid ID and a first deposit of 25 dollars",
              "a variable rate of 3.1 percent a year, paid monthly",
              "as long as you like",
              "Your deposits are insured up to 250,000 dollars."),
          new Product(
              "checking account",
              "a",
              "a valid ID and proof of address",
              "no interest, and no monthly fee with a direct deposit",
              "as long as you like",
              "A debit card and online banking come with it."),
          new Product(
              "fixed deposit",
              "a",
              "a valid ID and the amount you wish to deposit",
              "a fixed rate of 4.5 percent a year for the whole term",
              "six months to five years",
              "Withdrawing before the term ends costs three months of interest."),
          new Product(
              "credit card",
              "a",
              "proof of income and a valid ID",
              "a rate of 19.9 percent a year on any balance you carry",
              "as long as you keep it",
              "Paying the full balance each month means you pay no interest."),
          new Product(
              "business loan",
              "a",
              "your business plan, two years of accounts and a valid ID",
              "a fixed rate of 7.5 percent a year",
              "one to ten years",
              "A business adviser at the branch reviews your plan with you."),
          new Product(
              "student loan",
              "a",
              "your letter of admission and a valid ID",
              "a fixed rate of 4.9 percent a year",
              "up to ten years after you graduate",
              "Repayments start six months after you finish your studies."));

  private BankingDialogues() {}

  /** Every question form of every product, in a fixed order. */
  static List<Dialogue> all() {
    List<Dialogue> out = new ArrayList<>();
    for (Product p : PRODUCTS) {
      String a = p.article() + " " + p.name();
      String apply =
          "To apply for "
              + a
              + ", bring "
              + p.documents()
              + " to any branch of the bank, or apply online. "
              + "A loan officer checks your credit and answers within five business days.";
      String open =
          "To open "
              + a
              + ", bring "
              + p.documents()
              + " to any branch of the bank, or open it online in ten minutes. "
              + p.note();
      boolean account = p.name().contains("account") || p.name().contains("deposit");
      String start = account ? open : apply;
      String rate = "Our " + p.name() + " has " + p.rate() + ". " + p.note();
      String term =
          "Our "
              + p.name()
              + " runs "
              + p.term()
              + ", at "
              + p.rate()
              + ". Ask at the bank for the terms that fit you.";
      String need =
          "You need " + p.documents() + ". The bank reviews your application within five days.";
      if (account) {
        out.add(new Dialogue("How do I open " + a + "?", start));
        out.add(new Dialogue("How can I open " + a + " with your bank?", start));
        out.add(new Dialogue("I want to open " + a + ".", start));
        out.add(new Dialogue("Can I open " + a + " online?", start));
      } else {
        out.add(new Dialogue("How do I apply for " + a + "?", start));
        out.add(new Dialogue("How can I get " + a + "?", start));
        out.add(new Dialogue("I want to apply for " + a + ".", start));
        out.add(new Dialogue("Can I apply for " + a + " online?", start));
      }
      out.add(new Dialogue("What do I need for " + a + "?", need));
      out.add(new Dialogue("Which documents do I need for " + a + "?", need));
      out.add(new Dialogue("What is the interest rate on " + a + "?", rate));
      out.add(new Dialogue("What are your " + p.name() + " rates?", rate));
      out.add(new Dialogue("How much interest does " + a + " pay?", rate));
      out.add(new Dialogue("How long does " + a + " run?", term));
      out.add(new Dialogue("Tell me about your " + p.name() + ".", term));
    }
    return List.copyOf(out);
  }
}
