package io.rowmatch.bench.tpch;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.spark.sql.SparkSession;

/** TPC-H: trino-tpch's 22 queries and data, checked against its SF 0.01 reference answers there. */
public final class TpchWorkload implements Workload {
  public static final TpchWorkload INSTANCE = new TpchWorkload();

  /** Scale factor of trino-tpch's reference answers. */
  public static final double REFERENCE_SCALE = 0.01;

  private TpchWorkload() {}

  @Override
  public String id() {
    return "tpch";
  }

  @Override
  public String title() {
    return "TPC-H";
  }

  @Override
  public List<String> queryNames() {
    List<String> names = new ArrayList<>();
    for (int q = 1; q <= TpchQuery.COUNT; q++) {
      names.add("q" + q);
    }
    return List.copyOf(names);
  }

  @Override
  public TpchQuery query(String name, double scaleFactor) {
    return TpchQuery.load(Integer.parseInt(name.strip().toLowerCase().replace("q", "")), scaleFactor);
  }

  @Override
  public Path defaultDataDir() {
    return Path.of("tpch-data");
  }

  @Override
  public String marker() {
    return TpchDataGenerator.MARKER;
  }

  @Override
  public TpchDataset ensureData(SparkSession spark, Path root, double scaleFactor, PrintStream progress) {
    return TpchDataGenerator.ensure(spark, root, scaleFactor, progress);
  }

  @Override
  public Optional<ResultTable> reference(BenchQuery query, double scaleFactor) {
    return scaleFactor == REFERENCE_SCALE ? Optional.of(((TpchQuery) query).reference()) : Optional.empty();
  }

  @Override
  public Optional<String> compare(BenchQuery query, ResultTable expected, ResultTable actual) {
    return AnswerComparator.compare((TpchQuery) query, expected, actual);
  }
}
