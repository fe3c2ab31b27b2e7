package io.rowmatch.bench.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;

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
  void parsesListsAndRanges() {
    BenchmarkOptions options = BenchmarkOptions.parse(new String[] {
        "--sf", "0.01", "--queries", "1,3,q5-7", "--engines", "vanilla,comet", "--reps", "5"});
    assertEquals(List.of(1, 3, 5, 6, 7), options.queries());
    assertEquals(List.of(Engine.VANILLA, Engine.COMET), options.engines());
    assertEquals(5, options.reps());
    assertEquals("2g", options.childHeap());
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
