package io.rowmatch.bench.tpch;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.apache.spark.sql.SparkSession;

/**
 * TPC-DS: trino-tpcds data with Spark's types, Spark's 103 query texts, every answer checked against
 * vanilla Spark's (there is no external reference): sorted rows, floating values to ~10 significant digits.
 */
public final class TpcdsWorkload implements Workload {
  public static final TpcdsWorkload INSTANCE = new TpcdsWorkload();

  /** Relative tolerance of floating values (avg, stddev): about 10 significant digits. */
  public static final double FLOAT_TOLERANCE = 1e-10;

  private TpcdsWorkload() {}

  @Override
  public String id() {
    return "tpcds";
  }

  @Override
  public String title() {
    return "TPC-DS";
  }

  @Override
  public List<String> queryNames() {
    return TpcdsQuery.NAMES;
  }

  @Override
  public TpcdsQuery query(String name, double scaleFactor) {
    String key = name.strip().toLowerCase();
    return TpcdsQuery.load(key.startsWith("q") ? key : "q" + key);
  }

  @Override
  public Path defaultDataDir() {
    return Path.of("tpcds-data");
  }

  @Override
  public String marker() {
    return TpcdsDataGenerator.MARKER;
  }

  @Override
  public TpchDataset ensureData(SparkSession spark, Path root, double scaleFactor, PrintStream progress) {
    return TpcdsDataGenerator.ensure(spark, root, scaleFactor, progress);
  }

  @Override
  public Optional<ResultTable> reference(BenchQuery query, double scaleFactor) {
    return Optional.empty();
  }

  @Override
  public Optional<String> compare(BenchQuery query, ResultTable expected, ResultTable actual) {
    return AnswerComparator.compareSorted(expected, actual, FLOAT_TOLERANCE);
  }
}
