package io.rowmatch.bench.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class BenchmarkOptionsTest {
  @Test
  void defaults() {
    BenchmarkOptions options = BenchmarkOptions.parse(new String[0]);
    assertEquals(1.0, options.scaleFactor());
    assertEquals(22, options.queries().size());
    assertEquals(3, options.reps());
    assertEquals(List.of(Engine.VANILLA, Engine.ROWMATCH), options.engines());
    assertEquals(Path.of("tpch-data"), options.dataDir());
    assertEquals("8g", options.childHeap());
  }

  @Test
  void workerHeapSizesAndWhetherTheyArePreTouched() {
    assertEquals(512L << 20, WorkerProcess.bytes("512m"));
    assertEquals(5L << 30, WorkerProcess.bytes("5G"));
    assertEquals(1048576L, WorkerProcess.bytes("1048576"));
    assertEquals(-1L, WorkerProcess.bytes("lots"));
    long machine = ((com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
    // two heaps of a tenth of the machine fit; three engines of a quarter each (and Comet's off-heap) do not
    String tenth = (machine / 10 >> 20) + "m";
    String quarter = (machine / 4 >> 20) + "m";
    assertEquals(true, WorkerProcess.preTouchFits(BenchmarkOptions.parse(new String[] {"--child-heap", tenth})));
    assertEquals(false, WorkerProcess.preTouchFits(BenchmarkOptions.parse(new String[] {
        "--child-heap", quarter, "--engines", "vanilla,rowmatch,comet"})));
    assertEquals(false, WorkerProcess.preTouchFits(BenchmarkOptions.parse(new String[] {"--child-heap", "lots"})));
  }

  @Test
  void parsesListsAndRanges() {
    BenchmarkOptions options = BenchmarkOptions.parse(new String[] {
        "--sf", "0.01", "--queries", "1,3,q5-7", "--engines", "vanilla,comet", "--reps", "5"});
    assertEquals(List.of("q1", "q3", "q5", "q6", "q7"), options.queries());
    assertEquals(List.of(Engine.VANILLA, Engine.COMET), options.engines());
    assertEquals(5, options.reps());
    assertEquals("2g", options.childHeap());
  }

  @Test
  void tpcdsSuiteHasItsQueriesAndDataDir() {
    BenchmarkOptions all = BenchmarkOptions.parse(new String[] {"--suite", "tpcds"});
    assertEquals(103, all.queries().size());
    assertEquals(Path.of("tpcds-data"), all.dataDir());
    // A number stands for its a/b variants; a name for itself; the suite's order, whatever the list's.
    BenchmarkOptions some = BenchmarkOptions.parse(new String[] {"--queries", "39b,14,2-3", "--suite", "tpcds"});
    assertEquals(List.of("q2", "q3", "q14a", "q14b", "q39b"), some.queries());
    assertThrows(IllegalArgumentException.class,
        () -> BenchmarkOptions.parse(new String[] {"--suite", "tpcds", "--queries", "100"}));
    assertThrows(IllegalArgumentException.class,
        () -> BenchmarkOptions.parse(new String[] {"--suite", "tpcds", "--queries", "14c"}));
    assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse(new String[] {"--suite", "tpcx"}));
  }

  @Test
  void confIsRepeatableKeepsOrderAndValuesWithEqualsSigns() {
    BenchmarkOptions options = BenchmarkOptions.parse(new String[] {
        "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.driver.extraJavaOptions=-Da=b",
        "--conf", "spark.sql.shuffle.partitions=3"});
    assertEquals(Map.of("spark.sql.shuffle.partitions", "3", "spark.driver.extraJavaOptions", "-Da=b"),
        options.confs());
    assertEquals(List.of("spark.sql.shuffle.partitions", "spark.driver.extraJavaOptions"),
        List.copyOf(options.confs().keySet()));
    assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse(new String[] {"--conf", "novalue"}));
    assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse(new String[] {"--conf", "=x"}));
  }

  /** --conf reaches every engine's session: parent options -> worker arguments -> the worker's SparkSession. */
  @Test
  void confIsPassedToEveryEnginesSession() {
    BenchmarkOptions options = BenchmarkOptions.parse(new String[] {
        "--conf", "spark.sql.autoBroadcastJoinThreshold=-1", "--conf", "spark.rowmatch.test.marker=a=b c"});
    TpchDataset data = new TpchDataset(Path.of("data"), 1, Map.of(), 0);
    for (Engine engine : List.of(Engine.VANILLA, Engine.ROWMATCH)) {
      List<String> arguments = WorkerProcess.workerArguments(engine, options, data, Path.of("results"));
      Map<String, String> confs = EngineWorker.confs(WorkerProtocol.options(arguments.toArray(new String[0])));
      assertEquals(options.confs(), confs, engine.id());
    }
    Map<String, String> confs = EngineWorker.confs(WorkerProtocol.options(
        WorkerProcess.workerArguments(Engine.VANILLA, options, data, Path.of("results")).toArray(new String[0])));
    SparkSession spark = TpchSpark.session(Engine.VANILLA, "local[1]", 2, confs);
    try {
      assertEquals("-1", spark.conf().get("spark.sql.autoBroadcastJoinThreshold"));
      assertEquals("a=b c", spark.conf().get("spark.rowmatch.test.marker"));
      assertEquals("2", spark.conf().get("spark.sql.shuffle.partitions"));
    } finally {
      spark.stop();
    }
    // Given last, a --conf overrides what the runner sets itself.
    SparkSession overridden = TpchSpark.session(Engine.VANILLA, "local[1]", 2,
        Map.of("spark.sql.shuffle.partitions", "5"));
    try {
      assertEquals("5", overridden.conf().get("spark.sql.shuffle.partitions"));
    } finally {
      overridden.stop();
    }
  }

  @Test
  void rejectsWhatItCannotRun() {
    assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse(new String[] {"--queries", "23"}));
    assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse(new String[] {"--engines", "duckdb"}));
    assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse(new String[] {"--reps", "0"}));
    assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse(new String[] {"--sf"}));
    assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse(new String[] {"--bogus", "1"}));
  }

  @Test
  void aMissingEngineClassIsAClearErrorNotVanillaSpark() {
    boolean pluginPresent;
    try {
      Class.forName("io.rowmatch.spark.RowmatchExtensions");
      pluginPresent = true;
    } catch (ClassNotFoundException e) {
      pluginPresent = false;
    }
    if (!pluginPresent) {
      IllegalStateException e = assertThrows(IllegalStateException.class, Engine.ROWMATCH::checkAvailable);
      assertEquals(true, e.getMessage().contains("io.rowmatch.spark.RowmatchExtensions"));
    } else {
      Engine.ROWMATCH.checkAvailable();
    }
    Engine.VANILLA.checkAvailable();
  }
}
