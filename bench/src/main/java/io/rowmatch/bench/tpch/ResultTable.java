package io.rowmatch.bench.tpch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A query answer as text, in trino-tpch's {@code qN.result} format, which is also how the runner saves
 * the answers it computes:
 *
 * <pre>
 * -- delimiter: |; ignoreOrder: false; types: BIGINT|DECIMAL; names: c_custkey|revenue
 * 679|378211.3252
 * </pre>
 *
 * The header is optional; {@code types} and {@code names} are optional in it (the references have types
 * for some queries and never names). Values are printed as their engine printed them: decimals with the
 * digits kept (the references drop trailing zeros: {@code 380456} for {@code 380456.00}), dates as
 * {@code yyyy-MM-dd}, SQL NULL as {@code null}. Rows may end with a delimiter (most reference rows do).
 */
public record ResultTable(List<String> types, List<String> names, List<List<String>> rows, String source) {
  public static final String NULL = "null";
  private static final String DELIMITER = "|";

  public int columnCount() {
    if (!types.isEmpty()) {
      return types.size();
    }
    if (!names.isEmpty()) {
      return names.size();
    }
    return rows.isEmpty() ? 0 : rows.get(0).size();
  }

  public static ResultTable parse(String text, String source) {
    List<String> lines = new ArrayList<>(Arrays.asList(text.split("\r?\n")));
    List<String> types = List.of();
    List<String> names = List.of();
    if (!lines.isEmpty() && lines.get(0).startsWith("-- ")) {
      String header = lines.remove(0).substring(3);
      for (String attribute : header.split(";")) {
        int colon = attribute.indexOf(':');
        if (colon < 0) {
          continue;
        }
        String key = attribute.substring(0, colon).strip();
        String value = attribute.substring(colon + 1).strip();
        if (key.equals("delimiter") && !value.equals(DELIMITER)) {
          throw new IllegalArgumentException(source + ": only the delimiter '|' is supported, not '" + value + "'");
        } else if (key.equals("types")) {
          types = List.of(value.split("\\|", -1));
        } else if (key.equals("names")) {
          names = List.of(value.split("\\|", -1));
        }
      }
    }
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
      lines.remove(lines.size() - 1);
    }
    int columns = !types.isEmpty() ? types.size() : !names.isEmpty() ? names.size() : columnsOf(lines);
    List<List<String>> rows = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      List<String> fields = new ArrayList<>(Arrays.asList(lines.get(i).split("\\|", -1)));
      if (fields.size() == columns + 1 && fields.get(columns).isEmpty()) {
        fields.remove(columns); // the trailing delimiter most reference rows carry
      }
      if (fields.size() != columns) {
        throw new IllegalArgumentException(source + ": row " + (i + 1) + " has " + fields.size()
            + " values, expected " + columns + ": " + lines.get(i));
      }
      rows.add(List.copyOf(fields));
    }
    return new ResultTable(types, names, List.copyOf(rows), source);
  }

  /** Without declared types: the fewest values on a row once a trailing delimiter is dropped. */
  private static int columnsOf(List<String> lines) {
    int columns = Integer.MAX_VALUE;
    for (String line : lines) {
      int fields = line.split("\\|", -1).length;
      if (line.endsWith(DELIMITER)) {
        fields--;
      }
      columns = Math.min(columns, fields);
    }
    return lines.isEmpty() ? 0 : columns;
  }

  /** The text {@link #parse} reads back; rows carry no trailing delimiter. */
  public String format() {
    StringBuilder text = new StringBuilder("-- delimiter: |; ignoreOrder: false;");
    if (!types.isEmpty()) {
      text.append(" types: ").append(String.join(DELIMITER, types)).append(';');
    }
    if (!names.isEmpty()) {
      text.append(" names: ").append(String.join(DELIMITER, names)).append(';');
    }
    text.append('\n');
    for (List<String> row : rows) {
      for (String value : row) {
        if (value.contains(DELIMITER) || value.contains("\n")) {
          throw new IllegalArgumentException(
              source + ": value '" + value + "' contains the delimiter or a line break; it cannot be saved");
        }
      }
      text.append(String.join(DELIMITER, row)).append('\n');
    }
    return text.toString();
  }
}
