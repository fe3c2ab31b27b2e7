package io.rowmatch.bench.tpch;

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

  private SparkDialect() {}

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
