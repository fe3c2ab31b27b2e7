package io.rowmatch.bench.tpch;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report of one run: per query the median time per engine, the speedup over vanilla, the answer
 * verdicts, the Rowmatch (and Comet) operators in the plan and the fallback reasons; then the geometric
 * means. As a console table, Markdown, CSV and an SVG bar chart.
 */
public final class BenchmarkReport {
  private final BenchmarkOptions options;
  private final TpchDataset data;
  private final List<QueryResult> results;
  private final String command;

  public BenchmarkReport(BenchmarkOptions options, TpchDataset data, List<QueryResult> results, String command) {
    this.options = options;
    this.data = data;
    this.results = results;
    this.command = command;
  }

  private List<Engine> engines() {
    return options.engines();
  }

  private boolean hasVanilla() {
    return engines().contains(Engine.VANILLA);
  }

  /** vanilla / engine: above 1 the engine is faster. */
  private static double speedup(double vanillaMillis, double engineMillis) {
    return vanillaMillis / engineMillis;
  }

  private List<String> header() {
    List<String> header = new ArrayList<>();
    header.add("query");
    for (Engine engine : engines()) {
      header.add(engine.id() + " ms");
      if (engine != Engine.VANILLA && hasVanilla()) {
        header.add(engine.id() + " speedup");
      }
    }
    header.add("answers");
    if (engines().contains(Engine.ROWMATCH)) {
      header.add("Rowmatch operators");
      header.add("fallback reasons");
    }
    if (engines().contains(Engine.COMET)) {
      header.add("Comet operators");
    }
    return header;
  }

  private List<List<String>> rows(boolean fullText) {
    List<List<String>> rows = new ArrayList<>();
    for (QueryResult result : results) {
      List<String> row = new ArrayList<>();
      row.add(result.query());
      EngineResult vanilla = result.byEngine().get(Engine.VANILLA);
      for (Engine engine : engines()) {
        EngineResult r = result.byEngine().get(engine);
        row.add(millis(r.medianMillis()));
        if (engine != Engine.VANILLA && hasVanilla()) {
          row.add(ratio(speedup(vanilla.medianMillis(), r.medianMillis())));
        }
      }
      List<String> verdicts = new ArrayList<>();
      for (Engine engine : engines()) {
        String check = result.byEngine().get(engine).check();
        verdicts.add(engine.id() + " " + (fullText ? check : shortVerdict(check)));
      }
      row.add(String.join(fullText ? "; " : ", ", verdicts));
      if (engines().contains(Engine.ROWMATCH)) {
        WorkerProtocol.Reply warmup = result.byEngine().get(Engine.ROWMATCH).warmup();
        row.add(warmup.failed() ? "?" : warmup.operatorCount() + (fullText ? " (" + warmup.operators() + ")" : ""));
        String reasons = warmup.fallbackReasons().isEmpty() ? "-" : warmup.fallbackReasons();
        row.add(fullText || reasons.length() <= 60 ? reasons : reasons.substring(0, 57) + "...");
      }
      if (engines().contains(Engine.COMET)) {
        WorkerProtocol.Reply warmup = result.byEngine().get(Engine.COMET).warmup();
        row.add(warmup.failed() ? "?" : Integer.toString(warmup.operatorCount()));
      }
      rows.add(row);
    }
    rows.add(geomeanRow());
    return rows;
  }

  private static String shortVerdict(String check) {
    if (check.startsWith("ok")) {
      return "ok";
    }
    if (check.startsWith("anchor")) {
      return "anchor";
    }
    return check.split(":")[0];
  }

  /** Geometric means over the queries every engine completed (so the means compare like with like). */
  private List<String> geomeanRow() {
    List<QueryResult> complete = results.stream()
        .filter(r -> r.byEngine().values().stream().noneMatch(e -> Double.isNaN(e.medianMillis())))
        .toList();
    List<String> row = new ArrayList<>();
    row.add("geomean (" + complete.size() + " queries)");
    double vanillaMean = geomean(complete, Engine.VANILLA);
    for (Engine engine : engines()) {
      double mean = geomean(complete, engine);
      row.add(millis(mean));
      if (engine != Engine.VANILLA && hasVanilla()) {
        row.add(ratio(speedup(vanillaMean, mean)));
      }
    }
    long ok = results.stream().filter(QueryResult::allAnswersOk).count();
    row.add(ok + "/" + results.size() + " queries all ok");
    if (engines().contains(Engine.ROWMATCH)) {
      row.add("");
      row.add("");
    }
    if (engines().contains(Engine.COMET)) {
      row.add("");
    }
    return row;
  }

  private static double geomean(List<QueryResult> results, Engine engine) {
    if (results.isEmpty() || !results.get(0).byEngine().containsKey(engine)) {
      return Double.NaN;
    }
    double logSum = 0;
    for (QueryResult result : results) {
      logSum += Math.log(result.byEngine().get(engine).medianMillis());
    }
    return Math.exp(logSum / results.size());
  }

  private static String millis(double value) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.0f", value);
  }

  private static String ratio(double value) {
    return Double.isNaN(value) || Double.isInfinite(value) ? "-" : String.format(Locale.ROOT, "%.2fx", value);
  }

  private String title() {
    // The Spark version too: the runner builds for either Spark line (bench/tpch.sh --spark 4.1|4.2).
    return String.format(Locale.ROOT, "%s SF %s on Spark %s, %s, %d timed runs per query after 1 warm-up, median",
        options.suite().title(), TpchDataset.scaleText(options.scaleFactor()), org.apache.spark.package$.MODULE$.SPARK_VERSION(),
        String.join(" vs ", engines().stream().map(Engine::id).toList()), options.reps());
  }

  public String console() {
    List<String> header = header();
    List<List<String>> rows = rows(false);
    int[] widths = new int[header.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = header.get(c).length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    StringBuilder text = new StringBuilder(title()).append('\n');
    appendPadded(text, header, widths);
    for (List<String> row : rows) {
      appendPadded(text, row, widths);
    }
    text.append("speedup = vanilla median / engine median (above 1 = faster than vanilla)\n");
    return text.toString();
  }

  private static void appendPadded(StringBuilder text, List<String> row, int[] widths) {
    for (int c = 0; c < row.size(); c++) {
      String value = row.get(c);
      boolean number = c > 0 && !value.isEmpty() && (Character.isDigit(value.charAt(0)) || value.equals("-"));
      text.append(number ? " ".repeat(widths[c] - value.length()) + value : value + " ".repeat(widths[c] - value.length()));
      text.append(c + 1 < row.size() ? "  " : "\n");
    }
  }

  public String markdown() {
    StringBuilder md = new StringBuilder("# ").append(title()).append("\n\n");
    md.append("Command: `").append(command).append("`\n\n");
    md.append(String.format(Locale.ROOT, "Data: %s (generated in %.1f s; rows: %s)%n%n",
        data.dir(), data.generationSeconds(), data.rowCounts()));
    md.append(String.format(Locale.ROOT,
        "Each engine in its own JVM (-Xmx%s, local[*], spark.sql.shuffle.partitions=%d); engines interleaved"
            + " per query. Answers checked against %s. Speedup = vanilla median / engine median.%n%n",
        options.childHeap(), options.shufflePartitions(),
        options.suite().id().equals("tpch") && options.scaleFactor() == TpchBenchmark.REFERENCE_SCALE
            ? "trino-tpch's SF 0.01 reference answers"
            : options.suite().id().equals("tpcds") ? "vanilla Spark's answer (rows sorted; decimals exact, doubles to"
                + " a relative 1e-10)" : "vanilla Spark's answer"));
    if (!options.confs().isEmpty()) {
      md.append("Settings given with --conf (every engine): `").append(options.confs()).append("`\n\n");
    }
    List<String> header = header();
    md.append("| ").append(String.join(" | ", header)).append(" |\n|");
    md.append(" --- |".repeat(header.size())).append('\n');
    for (List<String> row : rows(true)) {
      md.append("| ").append(String.join(" | ", row.stream().map(v -> v.replace("|", "\\|")).toList())).append(" |\n");
    }
    md.append("\n![chart](chart.svg)\n");
    return md.toString();
  }

  public String csv() {
    StringBuilder csv = new StringBuilder("query,engine,label,millis,rows,operators,check\n");
    for (QueryResult result : results) {
      for (EngineResult r : result.byEngine().values()) {
        List<WorkerProtocol.Reply> all = new ArrayList<>();
        all.add(r.warmup());
        all.addAll(r.timed());
        for (WorkerProtocol.Reply reply : all) {
          csv.append(String.format(Locale.ROOT, "%s,%s,%s,%.3f,%d,%d,\"%s\"%n", result.query(), r.engine().id(),
              reply.label(), reply.millis(), reply.rows(), reply.operatorCount(),
              r.check().replace("\"", "'")));
        }
      }
    }
    return csv.toString();
  }

  public String svg() {
    List<String> labels = new ArrayList<>();
    List<double[]> values = new ArrayList<>();
    for (QueryResult result : results) {
      labels.add(result.query());
      values.add(engines().stream().mapToDouble(e -> result.byEngine().get(e).medianMillis() / 1000.0).toArray());
    }
    return SvgBarChart.render(title(), "median seconds (lower is faster)", labels,
        engines().stream().map(Engine::id).toList(), values);
  }
}
