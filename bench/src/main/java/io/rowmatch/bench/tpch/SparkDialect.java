package io.rowmatch.bench.tpch;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;

/**
 * Every edit made to trino-tpch's Presto query texts so that Spark SQL runs them: the ONE place to read
 * what differs from the published queries. Each edit names its query, the exact text replaced, and why.
 * An edit whose text is not found fails loudly, so a change in the library cannot silently skip it.
 *
 * <p>Checked and left alone because Spark 4.1 accepts them as written: {@code DATE 'x' +/- INTERVAL 'n'
 * DAY|MONTH|YEAR} (ANSI intervals; the result stays a DATE), {@code extract(YEAR FROM d)}, {@code date('x')}
 * (Q20), {@code substr} (Q22), derived-table column lists {@code c_orders (c_custkey, c_count)} (Q13).
 */
public final class SparkDialect {
  /** One textual edit of one query. */
  public record Edit(int query, String from, String to, String why) {}

  public static final List<Edit> EDITS = List.of(
      new Edit(6, "decimal '0.06' - decimal '0.01' AND decimal '0.06' + decimal '0.01'",
          "0.06 - 0.01 AND 0.06 + 0.01",
          "Spark has no typed DECIMAL literal (UNSUPPORTED_TYPED_LITERAL); its plain literal 0.06 is already"
              + " decimal(2,2), the type Presto gives decimal '0.06'."),
      new Edit(15, "CREATE OR REPLACE VIEW revenue AS", "CREATE OR REPLACE TEMPORARY VIEW revenue AS",
          "Spark's session catalog cannot hold a permanent view over temporary views (our tables are"
              + " temporary views over Parquet); a temporary view is per session, as a benchmark wants."));

  /** Q11's FRACTION as the published text has it (the value for SF 1). */
  static final String Q11_FRACTION = "* 0.0001";

  private SparkDialect() {}

  /**
   * The parameters the specification scales with the scale factor: Q11's FRACTION is 0.0001 / SF (TPC-H
   * 2.4.11.3); with the published 0.0001 at SF 10, no part passes and Q11 returns no rows. Below SF 1 the
   * published value stays: trino-tpch's SF 0.01 reference answers were computed with it.
   */
  public static String scaled(int number, String text, double scaleFactor) {
    if (number != 11 || scaleFactor <= 1) {
      return text;
    }
    if (!text.contains(Q11_FRACTION)) {
      throw new IllegalStateException("TPC-H Q11: expected the FRACTION text '" + Q11_FRACTION
          + "', which the query no longer contains; review SparkDialect.scaled");
    }
    return text.replace(Q11_FRACTION, "* " + q11Fraction(scaleFactor).toPlainString());
  }

  /** 0.0001 / SF to 10 digits (a decimal literal, so the comparison stays decimal as in the published text). */
  static BigDecimal q11Fraction(double scaleFactor) {
    return new BigDecimal("0.0001").divide(new BigDecimal(Double.toString(scaleFactor)), new MathContext(10))
        .stripTrailingZeros();
  }

  /** The Spark text of query {@code number}: its Presto text with this class's edits applied. */
  public static String apply(int number, String prestoText) {
    String text = prestoText;
    for (Edit edit : EDITS) {
      if (edit.query() != number) {
        continue;
      }
      if (!text.contains(edit.from())) {
        throw new IllegalStateException(
            "TPC-H Q" + number + ": the dialect edit expects the text '" + edit.from() + "', which the query"
                + " no longer contains; review SparkDialect.EDITS");
      }
      text = text.replace(edit.from(), edit.to());
    }
    return text;
  }
}
