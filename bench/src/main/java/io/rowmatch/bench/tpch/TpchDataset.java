package io.rowmatch.bench.tpch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.apache.spark.sql.SparkSession;

/**
 * A generated data set (TPC-H or TPC-DS) on disk: one Parquet directory per table under {@code dir}, plus
 * the marker that records the tables, their row counts and how long generation took.
 */
public record TpchDataset(Path dir, double scaleFactor, Map<String, Long> rowCounts, double generationSeconds) {

  /** Registers every table as a temporary view named as in the queries (lineitem, orders, ...). */
  public void registerViews(SparkSession spark) {
    for (String name : rowCounts.keySet()) {
      spark.read().parquet(dir.resolve(name).toString()).createOrReplaceTempView(name);
    }
  }

  /** "sf1", "sf0.01", "sf10": the folder of a scale factor. */
  public static String directoryName(double scaleFactor) {
    return "sf" + scaleText(scaleFactor);
  }

  public static String scaleText(double scaleFactor) {
    return new BigDecimal(Double.toString(scaleFactor)).stripTrailingZeros().toPlainString();
  }

  String markerText() {
    StringBuilder text = new StringBuilder();
    text.append(String.format(Locale.ROOT, "seconds %.1f%n", generationSeconds));
    rowCounts.forEach((table, rows) -> text.append(table).append(' ').append(rows).append('\n'));
    return text.toString();
  }

  static TpchDataset read(Path dir, double scaleFactor) {
    return read(dir, scaleFactor, TpchDataGenerator.MARKER);
  }

  static TpchDataset read(Path dir, double scaleFactor, String markerName) {
    Path marker = dir.resolve(markerName);
    try {
      double seconds = Double.NaN;
      Map<String, Long> counts = new LinkedHashMap<>();
      for (String line : Files.readAllLines(marker, StandardCharsets.UTF_8)) {
        String[] parts = line.trim().split(" ");
        if (parts.length != 2) {
          continue;
        }
        if (parts[0].equals("seconds")) {
          seconds = Double.parseDouble(parts[1]);
        } else {
          counts.put(parts[0], Long.parseLong(parts[1]));
        }
      }
      return new TpchDataset(dir, scaleFactor, counts, seconds);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the data set marker " + marker, e);
    }
  }
}
