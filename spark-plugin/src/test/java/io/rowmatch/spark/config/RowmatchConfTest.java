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
