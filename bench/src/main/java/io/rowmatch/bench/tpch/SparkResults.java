package io.rowmatch.bench.tpch;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;

/** Spark rows as a {@link ResultTable}: the text form answers are compared and saved in. */
public final class SparkResults {
  private SparkResults() {}

  public static ResultTable of(Dataset<Row> frame, List<Row> rows, String source) {
    List<String> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (StructField field : frame.schema().fields()) {
      types.add(field.dataType().simpleString());
      names.add(field.name());
    }
    List<List<String>> texts = new ArrayList<>(rows.size());
    for (Row row : rows) {
      List<String> values = new ArrayList<>(row.length());
      for (int i = 0; i < row.length(); i++) {
        values.add(text(row.get(i)));
      }
      texts.add(values);
    }
    return new ResultTable(List.copyOf(types), List.copyOf(names), texts, source);
  }

  static String text(Object value) {
    if (value == null) {
      return ResultTable.NULL;
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      // Plain digits keep the printed precision readable by BigDecimal; NaN/Infinity stay words.
      return Double.isFinite(d) ? BigDecimal.valueOf(d).toPlainString() : Double.toString(d);
    }
    return value.toString(); // integers, strings, and dates (LocalDate and java.sql.Date print yyyy-MM-dd)
  }
}
