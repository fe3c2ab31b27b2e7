package io.rowmatch.bench.tpch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One of the 103 TPC-DS v1.4 queries (the 99, with q14, q23, q24 and q39 in their a/b variants) as Spark's
 * own TPCDSQuerySuite runs them: the texts under {@code tpcds/} in Spark's {@code spark-sql} test jar
 * (unpacked into the bench module's classes by the build), unedited (they are written in Spark's dialect). Each is one statement.
 */
public record TpcdsQuery(String name, List<String> statements) implements BenchQuery {
  private static final String RESOURCES = "tpcds/";

  /** TPCDSBase's v1.4 list, in its order. */
  public static final List<String> NAMES = List.of(
      "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10", "q11",
      "q12", "q13", "q14a", "q14b", "q15", "q16", "q17", "q18", "q19", "q20",
      "q21", "q22", "q23a", "q23b", "q24a", "q24b", "q25", "q26", "q27", "q28", "q29", "q30",
      "q31", "q32", "q33", "q34", "q35", "q36", "q37", "q38", "q39a", "q39b", "q40",
      "q41", "q42", "q43", "q44", "q45", "q46", "q47", "q48", "q49", "q50",
      "q51", "q52", "q53", "q54", "q55", "q56", "q57", "q58", "q59", "q60",
      "q61", "q62", "q63", "q64", "q65", "q66", "q67", "q68", "q69", "q70",
      "q71", "q72", "q73", "q74", "q75", "q76", "q77", "q78", "q79", "q80",
      "q81", "q82", "q83", "q84", "q85", "q86", "q87", "q88", "q89", "q90",
      "q91", "q92", "q93", "q94", "q95", "q96", "q97", "q98", "q99");

  public static TpcdsQuery load(String name) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException("TPC-DS has no query " + name + "; its queries are " + NAMES);
    }
    String path = RESOURCES + name + ".sql";
    try (InputStream in = TpcdsQuery.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("Resource " + path + " not found: is Spark's spark-sql test jar"
            + " unpacked into the bench module's classes? (build the bench module)");
      }
      return new TpcdsQuery(name, List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip()));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + path, e);
    }
  }
}
