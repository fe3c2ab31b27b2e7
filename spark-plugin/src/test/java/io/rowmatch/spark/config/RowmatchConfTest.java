package io.rowmatch.spark.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.internal.config.ConfigEntry;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.Test;

import io.rowmatch.spark.testing.TestFaults;

class RowmatchConfTest {
  @Test
  void defaults() {
    RowmatchConf c = RowmatchConf.from(new SQLConf());
    assertTrue(c.enabled());
    assertTrue(c.aggregateEnabled());
    assertTrue(c.dedupEnabled());
    assertEquals(8192, c.batchSize());
    assertEquals(2L << 30, c.memoryLimitBytes());
    assertFalse(c.explainFallback());
    assertFalse(c.skipPartialEnabled());
    assertEquals(262_144L, c.skipPartialMinRows());
    assertEquals(0.8, c.skipPartialRatio());
  }

  /** The settings are parsed once per conf and kept until one of them or the session time zone changes. */
  @Test
  void parsedAgainOnlyWhenASettingChanges() {
    SQLConf sql = new SQLConf();
    RowmatchConf first = RowmatchConf.from(sql);
    assertSame(first, RowmatchConf.from(sql));
    sql.setConfString(RowmatchConf.BATCH_SIZE, "100");
    RowmatchConf changed = RowmatchConf.from(sql);
    assertEquals(100, changed.batchSize());
    assertSame(changed, RowmatchConf.from(sql));
    sql.setConfString(SQLConf.SESSION_LOCAL_TIMEZONE().key(), "Asia/Kolkata");
    assertEquals("Asia/Kolkata", RowmatchConf.from(sql).sessionTimeZone());
    sql.unsetConf(RowmatchConf.BATCH_SIZE);
    assertEquals(8192, RowmatchConf.from(sql).batchSize());
    SQLConf other = new SQLConf();
    other.setConfString(RowmatchConf.BATCH_SIZE, "7");
    assertEquals(7, RowmatchConf.from(other).batchSize());
    assertEquals(8192, RowmatchConf.from(sql).batchSize());
  }

  @Test
  void parsesSkipPartialSettings() {
    SQLConf sql = new SQLConf();
    sql.setConfString(RowmatchConf.SKIP_PARTIAL_ENABLED, "true");
    sql.setConfString(RowmatchConf.SKIP_PARTIAL_MIN_ROWS, "1000");
    sql.setConfString(RowmatchConf.SKIP_PARTIAL_RATIO, "0.5");
    RowmatchConf c = RowmatchConf.from(sql);
    assertTrue(c.skipPartialEnabled());
    assertEquals(1000L, c.skipPartialMinRows());
    assertEquals(0.5, c.skipPartialRatio());
    for (String[] bad : new String[][] {{RowmatchConf.SKIP_PARTIAL_MIN_ROWS, "0"},
        {RowmatchConf.SKIP_PARTIAL_MIN_ROWS, "many"}, {RowmatchConf.SKIP_PARTIAL_RATIO, "1.5"},
        {RowmatchConf.SKIP_PARTIAL_RATIO, "-0.1"}, {RowmatchConf.SKIP_PARTIAL_RATIO, "NaN"},
        {RowmatchConf.SKIP_PARTIAL_ENABLED, "maybe"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read(bad[0], bad[1]));
      assertTrue(e.getMessage().contains(bad[0]), e.getMessage());
    }
  }

  @Test
  void parsesSettings() {
    SQLConf sql = new SQLConf();
    sql.setConfString(RowmatchConf.ENABLED, "FALSE");
    sql.setConfString(RowmatchConf.DEDUP_ENABLED, "false");
    sql.setConfString(RowmatchConf.BATCH_SIZE, "100");
    sql.setConfString(RowmatchConf.MEMORY_LIMIT, "512m");
    sql.setConfString(RowmatchConf.EXPLAIN_FALLBACK, "true");
    RowmatchConf c = RowmatchConf.from(sql);
    assertFalse(c.enabled());
    assertFalse(c.dedupEnabled());
    assertTrue(c.aggregateEnabled());
    assertEquals(100, c.batchSize());
    assertEquals(512L << 20, c.memoryLimitBytes());
    assertTrue(c.explainFallback());
  }

  @Test
  void badValuesNameTheSetting() {
    for (String[] bad : new String[][] {{RowmatchConf.BATCH_SIZE, "0"}, {RowmatchConf.BATCH_SIZE, "-3"},
        {RowmatchConf.BATCH_SIZE, "4294967296"}, {RowmatchConf.ENABLED, "yes"}, {RowmatchConf.MEMORY_LIMIT, "lots"},
        {RowmatchConf.MEMORY_LIMIT, "0"}, {RowmatchConf.JOIN_ENABLED, ""}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read(bad[0], bad[1]));
      assertTrue(e.getMessage().contains(bad[0]), e.getMessage());
    }
  }

  /** A value that reached the conf unchecked (Spark validates registered entries only where it sets them). */
  @Test
  void valuesSetUncheckedAreValidatedWhenRead() {
    SQLConf sql = new SQLConf();
    sql.settings().put(RowmatchConf.BATCH_SIZE, "0");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RowmatchConf.from(sql));
    assertTrue(e.getMessage().contains(RowmatchConf.BATCH_SIZE), e.getMessage());
  }

  @Test
  void everySettingIsRegisteredWithSparkAndTestSettingsAreInternal() {
    RowmatchConf.from(new SQLConf()); // loads the entries
    java.util.Set<String> listed = new java.util.HashSet<>();
    for (scala.Tuple4<String, String, String, String> t : scala.jdk.javaapi.CollectionConverters.asJava(
        new SQLConf().getAllDefinedConfs())) {
      listed.add(t._1());
    }
    for (ConfigEntry<Object> entry : RowmatchConf.ENTRIES) {
      assertTrue(listed.contains(entry.key()), entry.key() + " is not listed by SET -v");
      assertTrue(entry.isPublic(), entry.key() + " should be public");
      assertFalse(entry.doc().isEmpty(), entry.key() + " has no doc");
    }
    for (String key : new String[] {TestFaults.ENABLED, TestFaults.FAIL_AFTER_BATCHES, TestFaults.PAUSE_FILE,
        TestFaults.OPERATOR}) {
      assertTrue(key.startsWith("spark.rowmatch.test."), key);
      assertFalse(listed.contains(key), key + " is test-only and must not be listed by SET -v");
    }
  }

  /**
   * The README's settings table is the user's view of {@link RowmatchConf#ENTRIES}: the same keys in the same
   * order, each with its default and doc. Fails with the row the README should have.
   */
  @Test
  void readmeSettingsTableMatchesTheEntries() throws java.io.IOException {
    java.nio.file.Path readme = java.nio.file.Path.of(System.getProperty("user.dir")).resolveSibling("README.md");
    java.util.List<String> rows = new java.util.ArrayList<>();
    for (String line : java.nio.file.Files.readAllLines(readme)) {
      if (line.startsWith("| `spark.rowmatch.")) {
        rows.add(line);
      }
    }
    java.util.List<String> expected = new java.util.ArrayList<>();
    for (ConfigEntry<Object> entry : RowmatchConf.ENTRIES) {
      expected.add("| `" + entry.key() + "` | `" + entry.defaultValueString() + "` | " + entry.doc() + " |");
    }
    assertEquals(String.join("\n", expected), String.join("\n", rows), "README.md's settings table");
  }

  /** Sets one value as a session does, then reads the settings: either step may refuse a bad value. */
  private static RowmatchConf read(String key, String value) {
    SQLConf sql = new SQLConf();
    sql.setConfString(key, value);
    return RowmatchConf.from(sql);
  }
}
