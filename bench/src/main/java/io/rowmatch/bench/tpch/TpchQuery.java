package io.rowmatch.bench.tpch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One of the 22 TPC-H queries as trino-tpch ships it ({@code io/trino/tpch/queries/qN.sql}), in Spark's
 * dialect ({@link SparkDialect}), split into statements (Q15 creates a view first; the last statement
 * gives the answer), with what answer checking needs: the output columns of the final ORDER BY and the
 * LIMIT.
 */
public record TpchQuery(int number, List<String> statements, List<String> orderBy, int limit) implements BenchQuery {
  public static final int COUNT = 22;
  public static final int NO_LIMIT = -1;
  private static final String RESOURCES = "io/trino/tpch/queries/";
  private static final Pattern ORDER_BY = Pattern.compile("(?i)\\bORDER\\s+BY\\b");
  private static final Pattern LIMIT = Pattern.compile("(?is)\\bLIMIT\\s+(\\d+)\\s*$");

  @Override
  public String name() {
    return "q" + number;
  }

  /** The query as published (its substitution parameters those of SF 1, as the reference answers use). */
  public static TpchQuery load(int number) {
    return load(number, 1);
  }

  /** The query for a run at {@code scaleFactor}: parameters that the specification scales are scaled. */
  public static TpchQuery load(int number, double scaleFactor) {
    if (number < 1 || number > COUNT) {
      throw new IllegalArgumentException("TPC-H has queries 1 to 22, not " + number);
    }
    String spark = SparkDialect.scaled(number, SparkDialect.apply(number, withoutComments(resource("q" + number + ".sql"))),
        scaleFactor);
    List<String> statements = new ArrayList<>();
    for (String statement : spark.split(";")) {
      if (!statement.isBlank()) {
        statements.add(statement.strip());
      }
    }
    String last = statements.get(statements.size() - 1);
    return new TpchQuery(number, List.copyOf(statements), orderByColumns(last), limitOf(last));
  }

  public static List<TpchQuery> all() {
    List<TpchQuery> queries = new ArrayList<>();
    for (int i = 1; i <= COUNT; i++) {
      queries.add(load(i));
    }
    return queries;
  }

  /** The reference answer at SF 0.01 ({@code qN.result}). */
  public ResultTable reference() {
    return ResultTable.parse(resource(name() + ".result"), RESOURCES + name() + ".result");
  }

  /** The names in the outer (last) ORDER BY, lower case, without ASC/DESC; empty without ORDER BY. */
  static List<String> orderByColumns(String statement) {
    Matcher matcher = ORDER_BY.matcher(statement);
    int start = -1;
    while (matcher.find()) {
      start = matcher.end();
    }
    if (start < 0) {
      return List.of();
    }
    String items = statement.substring(start);
    Matcher limit = LIMIT.matcher(items);
    if (limit.find()) {
      items = items.substring(0, limit.start());
    }
    List<String> names = new ArrayList<>();
    for (String item : items.split(",")) {
      String name = item.strip().split("\\s+")[0].toLowerCase(Locale.ROOT);
      if (!name.isEmpty()) {
        names.add(name);
      }
    }
    return List.copyOf(names);
  }

  static int limitOf(String statement) {
    Matcher matcher = LIMIT.matcher(statement);
    return matcher.find() ? Integer.parseInt(matcher.group(1)) : NO_LIMIT;
  }

  private static String withoutComments(String sql) {
    StringBuilder out = new StringBuilder();
    for (String line : sql.split("\n")) {
      if (!line.strip().startsWith("--")) {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }

  static String resource(String fileName) {
    String path = RESOURCES + fileName;
    try (InputStream in = TpchQuery.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("Resource " + path + " not found: is io.trino.tpch:tpch on the classpath?");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + path, e);
    }
  }
}
