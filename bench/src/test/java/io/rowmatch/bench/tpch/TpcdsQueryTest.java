package io.rowmatch.bench.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

class TpcdsQueryTest {
  @Test
  void loadsThe103QueriesOfSparksTpcdsSuite() {
    assertEquals(103, TpcdsQuery.NAMES.size());
    assertEquals(103, new HashSet<>(TpcdsQuery.NAMES).size());
    for (String name : TpcdsQuery.NAMES) {
      TpcdsQuery query = TpcdsQuery.load(name);
      assertEquals(1, query.statements().size(), name);
      String text = query.answerStatement().toLowerCase(Locale.ROOT);
      assertTrue(text.contains("select") && text.contains("from"), name);
      assertTrue(!text.contains(";"), name);
    }
    assertEquals(List.of("q14a", "q14b"), TpcdsWorkload.INSTANCE.select("14"));
    assertEquals("q23b", TpcdsWorkload.INSTANCE.query("23b", 1).name());
    assertThrows(IllegalArgumentException.class, () -> TpcdsQuery.load("q14"));
  }
}
