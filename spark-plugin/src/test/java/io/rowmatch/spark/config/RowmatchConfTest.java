package io.rowmatch.spark.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.Test;

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
      SQLConf s = new SQLConf();
      s.setConfString(bad[0], bad[1]);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RowmatchConf.from(s));
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
    SQLConf sql = new SQLConf();
    sql.setConfString(RowmatchConf.BATCH_SIZE, "0");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RowmatchConf.from(sql));
    assertTrue(e.getMessage().contains(RowmatchConf.BATCH_SIZE), e.getMessage());
    SQLConf sql2 = new SQLConf();
    sql2.setConfString(RowmatchConf.ENABLED, "yes");
    e = assertThrows(IllegalArgumentException.class, () -> RowmatchConf.from(sql2));
    assertTrue(e.getMessage().contains(RowmatchConf.ENABLED), e.getMessage());
    SQLConf sql3 = new SQLConf();
    sql3.setConfString(RowmatchConf.MEMORY_LIMIT, "lots");
    e = assertThrows(IllegalArgumentException.class, () -> RowmatchConf.from(sql3));
    assertTrue(e.getMessage().contains(RowmatchConf.MEMORY_LIMIT), e.getMessage());
  }
}
