package io.rowmatch.bench.tpch;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import io.trino.tpcds.Table;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.LongAccumulator;

/**
 * Generates the 24 TPC-DS tables with trino-tpcds into Parquet ({@link TpcdsSchema}'s types), once per
 * scale factor, as {@link TpchDataGenerator} does for TPC-H: one Spark job per table, the marker
 * {@value #MARKER} written last.
 *
 * <p>Chunks: trino-tpcds generates any range of a table's row numbers (for sales tables, of orders with
 * their line items and returns), skipping its random streams to the range's start, so a range is one
 * partition. Tables that keep history (slowly changing dimensions such as item and store) are generated
 * in one piece: their rows depend on the rows before them. The library's own split does not help: it
 * keeps every table under a million row numbers in one chunk.
 */
public final class TpcdsDataGenerator {
  public static final String MARKER = "_TPCDS_COMPLETE";

  /** Row numbers per chunk: for sales tables an order has ~12 line items on average. */
  private static final long SALES_ROWS_PER_CHUNK = 20_000;
  private static final long ROWS_PER_CHUNK = 500_000;

  private TpcdsDataGenerator() {}

  public static TpchDataset ensure(SparkSession spark, Path dataRoot, double scaleFactor, PrintStream progress) {
    Path dir = dataRoot.resolve(TpchDataset.directoryName(scaleFactor));
    Path marker = dir.resolve(MARKER);
    if (Files.isRegularFile(marker)) {
      TpchDataset existing = TpchDataset.read(dir, scaleFactor, MARKER);
      progress.printf(Locale.ROOT, "TPC-DS SF %s: reusing %s (generated in %.1f s)%n",
          TpchDataset.scaleText(scaleFactor), dir, existing.generationSeconds());
      return existing;
    }
    TpchDataGenerator.deleteRecursively(dir);
    progress.printf(Locale.ROOT, "TPC-DS SF %s: generating into %s%n", TpchDataset.scaleText(scaleFactor), dir);
    long start = System.nanoTime();
    Map<String, Long> rowCounts = new LinkedHashMap<>();
    for (Map.Entry<String, StructType> table : TpcdsSchema.tables().entrySet()) {
      rowCounts.put(table.getKey(), generateTable(spark, table.getKey(), table.getValue(), scaleFactor, dir, progress));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    TpchDataset dataset = new TpchDataset(dir, scaleFactor, rowCounts, seconds);
    TpchDataGenerator.write(marker, dataset.markerText());
    progress.printf(Locale.ROOT, "TPC-DS SF %s: generated in %.1f s%n", TpchDataset.scaleText(scaleFactor), seconds);
    return dataset;
  }

  /** The [first, last] row numbers (1-based, inclusive) of each chunk of a table. */
  static List<long[]> chunks(Table table, double scaleFactor) {
    long rows = rowNumbers(table, scaleFactor);
    long perChunk = table.hasChild() || table.isChild() ? SALES_ROWS_PER_CHUNK : ROWS_PER_CHUNK;
    return forcedChunks(table, scaleFactor, (int) Math.max(1, Math.min(256, (rows + perChunk - 1) / perChunk)));
  }

  /** {@code count} chunks of equal size, or one for a table that keeps history. */
  static List<long[]> forcedChunks(Table table, double scaleFactor, int count) {
    long rows = rowNumbers(table, scaleFactor);
    List<long[]> chunks = new ArrayList<>();
    if (rows <= 0) {
      return chunks;
    }
    long size = table.keepsHistory() ? rows : (rows + count - 1) / count;
    for (long first = 1; first <= rows; first += size) {
      chunks.add(new long[] {first, Math.min(rows, first + size - 1)});
    }
    return chunks;
  }

  private static long rowNumbers(Table table, double scaleFactor) {
    return session(table, scaleFactor).getScaling().getRowCount(table);
  }

  private static Session session(Table table, double scaleFactor) {
    return Session.getDefaultSession().withScale(scaleFactor).withTable(table);
  }

  private static long generateTable(SparkSession spark, String name, StructType schema, double scaleFactor,
      Path dir, PrintStream progress) {
    Table table = Table.getTable(name);
    int[] positions = TpcdsSchema.generatorPositions(name, schema);
    List<long[]> chunks = chunks(table, scaleFactor);
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    LongAccumulator rows = spark.sparkContext().longAccumulator(name + " rows");
    LongAccumulator chunksDone = spark.sparkContext().longAccumulator(name + " chunks");
    JavaRDD<Row> generated = context.parallelize(chunks, Math.max(1, chunks.size()))
        .flatMap(range -> new TpchDataGenerator.CountingIterator(
            generate(name, scaleFactor, range, schema, positions), rows, chunksDone));
    long start = System.nanoTime();
    try (TpchDataGenerator.ProgressTicker ticker =
        new TpchDataGenerator.ProgressTicker(progress, name, chunks.size(), rows, chunksDone)) {
      spark.createDataFrame(generated, schema).write().mode(SaveMode.Overwrite).parquet(dir.resolve(name).toString());
    }
    long count = rows.value();
    progress.printf(Locale.ROOT, "  %-22s %,12d rows  %3d chunks  %6.1f s%n",
        name, count, chunks.size(), (System.nanoTime() - start) / 1e9);
    return count;
  }

  /** Runs on an executor: the rows of one chunk. */
  static Iterator<Row> generate(String name, double scaleFactor, long[] range, StructType schema, int[] positions) {
    Table table = Table.getTable(name);
    Iterator<List<List<String>>> results =
        Results.constructResults(table, range[0], range[1], session(table, scaleFactor)).iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return results.hasNext();
      }

      @Override
      public Row next() {
        // One list per row number; its first element is the table's row (a parent's child rows are not asked for).
        return TpcdsSchema.toRow(results.next().get(0), schema, positions);
      }
    };
  }
}
