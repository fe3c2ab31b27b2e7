package io.rowmatch.bench.tpch;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.LongAccumulator;

/**
 * Generates the eight TPC-H tables with trino-tpch into Parquet, once per scale factor.
 *
 * <p>Each table is cut into chunks (the generators take {@code part/partCount}); every chunk is one
 * partition of a Spark job, so generation uses all cores. The marker file {@value #MARKER} is written
 * last: a directory without it comes from a run that was killed and is generated again.
 */
public final class TpchDataGenerator {
  public static final String MARKER = "_TPCH_COMPLETE";

  /** Rows per chunk we aim for: big enough to amortise a task, small enough to spread over cores. */
  private static final long ROWS_PER_CHUNK = 750_000;

  private TpchDataGenerator() {}

  /**
   * The data set for {@code scaleFactor} under {@code dataRoot}, generated first if absent or partial
   * ({@code spark} is only used to generate, and may be null when the data is known to be complete).
   */
  public static TpchDataset ensure(SparkSession spark, Path dataRoot, double scaleFactor, PrintStream progress) {
    Path dir = dataRoot.resolve(TpchDataset.directoryName(scaleFactor));
    Path marker = dir.resolve(MARKER);
    if (Files.isRegularFile(marker)) {
      TpchDataset existing = TpchDataset.read(dir, scaleFactor);
      progress.printf(Locale.ROOT, "TPC-H SF %s: reusing %s (generated in %.1f s)%n",
          TpchDataset.scaleText(scaleFactor), dir, existing.generationSeconds());
      return existing;
    }
    deleteRecursively(dir);
    progress.printf(Locale.ROOT, "TPC-H SF %s: generating into %s%n", TpchDataset.scaleText(scaleFactor), dir);
    long start = System.nanoTime();
    Map<String, Long> rowCounts = new LinkedHashMap<>();
    for (TpchTable<?> table : TpchTable.getTables()) {
      rowCounts.put(table.getTableName(), generateTable(spark, table, scaleFactor, dir, progress));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    TpchDataset dataset = new TpchDataset(dir, scaleFactor, rowCounts, seconds);
    write(marker, dataset.markerText());
    progress.printf(Locale.ROOT, "TPC-H SF %s: generated in %.1f s%n", TpchDataset.scaleText(scaleFactor), seconds);
    return dataset;
  }

  private static long generateTable(
      SparkSession spark, TpchTable<?> table, double scaleFactor, Path dir, PrintStream progress) {
    String name = table.getTableName();
    int chunks = chunkCount(name, scaleFactor);
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    LongAccumulator rows = spark.sparkContext().longAccumulator(name + " rows");
    LongAccumulator chunksDone = spark.sparkContext().longAccumulator(name + " chunks");
    List<Integer> parts = new ArrayList<>();
    for (int part = 1; part <= chunks; part++) {
      parts.add(part);
    }
    JavaRDD<Row> generated = context.parallelize(parts, chunks)
        .flatMap(part -> new CountingIterator(generate(name, scaleFactor, part, chunks), rows, chunksDone));
    long start = System.nanoTime();
    try (ProgressTicker ticker = new ProgressTicker(progress, name, chunks, rows, chunksDone)) {
      spark.createDataFrame(generated, TpchSchema.of(table))
          .write()
          .mode(SaveMode.Overwrite)
          .parquet(dir.resolve(name).toString());
    }
    long count = rows.value();
    progress.printf(Locale.ROOT, "  %-8s %,12d rows  %3d chunks  %6.1f s%n",
        name, count, chunks, (System.nanoTime() - start) / 1e9);
    return count;
  }

  static int chunkCount(String table, double scaleFactor) {
    if (table.equals("nation") || table.equals("region")) {
      return 1; // fixed tiny tables; their generators ignore the scale factor
    }
    long estimate = (long) Math.ceil(baseRows(table) * scaleFactor);
    return (int) Math.max(1, Math.min(256, (estimate + ROWS_PER_CHUNK - 1) / ROWS_PER_CHUNK));
  }

  private static long baseRows(String table) {
    switch (table) {
      case "customer": return 150_000;
      case "orders": return 1_500_000;
      case "lineitem": return 6_000_000;
      case "part": return 200_000;
      case "partsupp": return 800_000;
      case "supplier": return 10_000;
      default: return 25;
    }
  }

  /** Runs on an executor: one chunk of one table as rows. */
  private static Iterator<Row> generate(String tableName, double scaleFactor, int part, int partCount) {
    return rowsOf(TpchTable.getTable(tableName), scaleFactor, part, partCount);
  }

  private static <E extends TpchEntity> Iterator<Row> rowsOf(
      TpchTable<E> table, double scaleFactor, int part, int partCount) {
    Iterator<E> entities = table.createGenerator(scaleFactor, part, partCount).iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return entities.hasNext();
      }

      @Override
      public Row next() {
        return TpchSchema.toRow(table, entities.next());
      }
    };
  }

  /** Counts a chunk's rows and reports them once, when the chunk is exhausted (accumulators are per task). */
  static final class CountingIterator implements Iterator<Row> {
    private final Iterator<Row> rows;
    private final LongAccumulator rowCount;
    private final LongAccumulator chunksDone;
    private long seen;
    private boolean reported;

    CountingIterator(Iterator<Row> rows, LongAccumulator rowCount, LongAccumulator chunksDone) {
      this.rows = rows;
      this.rowCount = rowCount;
      this.chunksDone = chunksDone;
    }

    @Override
    public boolean hasNext() {
      boolean more = rows.hasNext();
      if (!more && !reported) {
        reported = true;
        rowCount.add(seen);
        chunksDone.add(1);
      }
      return more;
    }

    @Override
    public Row next() {
      seen++;
      return rows.next();
    }
  }

  /** Prints the finished chunks of the table being written every few seconds. */
  static final class ProgressTicker implements AutoCloseable {
    private final Thread thread;

    ProgressTicker(PrintStream out, String table, int chunks, LongAccumulator rows, LongAccumulator done) {
      thread = new Thread(() -> {
        try {
          while (true) {
            Thread.sleep(10_000);
            out.printf(Locale.ROOT, "  %-8s ... %d/%d chunks done, %,d rows so far%n",
                table, done.value(), chunks, rows.value());
          }
        } catch (InterruptedException stop) {
          Thread.currentThread().interrupt();
        }
      }, "data-progress-" + table);
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() {
      thread.interrupt();
    }
  }

  static void write(Path file, String text) {
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete the partial data in " + dir, e);
    }
  }
}
