package io.rowmatch.bench.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

class ResultTableTest {
  @Test
  void readsTheReferenceFormatWithAndWithoutTrailingDelimiters() {
    ResultTable table = ResultTable.parse(
        "-- delimiter: |; ignoreOrder: false;\nA|F|380456|0.05|14876\nN|F|8971.00|0.05|348|\n", "q1");
    assertEquals(List.of(), table.types());
    assertEquals(5, table.columnCount());
    assertEquals(List.of(List.of("A", "F", "380456", "0.05", "14876"), List.of("N", "F", "8971.00", "0.05", "348")),
        table.rows());
  }

  @Test
  void readsDeclaredTypesAndKeepsAnEmptyLastValueWhenTypesSaySo() {
    ResultTable table = ResultTable.parse("-- delimiter: |; ignoreOrder: false; types: BIGINT|LONGNVARCHAR \n1|\n", "t");
    assertEquals(List.of("BIGINT", "LONGNVARCHAR"), table.types());
    assertEquals(List.of(List.of("1", "")), table.rows());
  }

  @Test
  void readsTheRealReferencesOfAllQueries() {
    for (TpchQuery query : TpchQuery.all()) {
      ResultTable reference = query.reference();
      assertEquals(true, reference.rows().size() >= 1, query.name());
      for (List<String> row : reference.rows()) {
        assertEquals(reference.columnCount(), row.size(), query.name());
      }
    }
    assertEquals(4, TpchQuery.load(1).reference().rows().size());
    assertEquals(10, TpchQuery.load(1).reference().columnCount());
    assertEquals(20, TpchQuery.load(10).reference().rows().size());
    assertEquals(List.of("null"), TpchQuery.load(17).reference().rows().get(0));
  }

  @Test
  void formatAndParseRoundTrip() {
    ResultTable table = new ResultTable(List.of("bigint", "string"), List.of("k", "v"),
        List.of(List.of("1", "a b"), List.of("2", ""), List.of("3", "null")), "t");
    ResultTable back = ResultTable.parse(table.format(), "t");
    assertEquals(table.types(), back.types());
    assertEquals(table.names(), back.names());
    assertEquals(table.rows(), back.rows());
  }

  @Test
  void rejectsRowsOfTheWrongWidthAndUnsavableValues() {
    assertThrows(IllegalArgumentException.class,
        () -> ResultTable.parse("-- delimiter: |; types: BIGINT|BIGINT\n1|2|3\n", "t"));
    assertThrows(IllegalArgumentException.class,
        () -> new ResultTable(List.of(), List.of(), List.of(List.of("a|b")), "t").format());
  }
}
