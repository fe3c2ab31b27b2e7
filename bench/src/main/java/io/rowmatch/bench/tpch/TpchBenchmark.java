package io.rowmatch.bench.tpch;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.apache.spark.sql.SparkSession;

/**
 * The benchmark runner (the project's main job; see {@link BenchmarkOptions#USAGE}) for TPC-H and TPC-DS
 * ({@link Workload}). It generates the data once, starts one worker JVM per engine, runs each query warm
 * (one warm-up, then the timed runs) with the engines interleaved, checks every answer (against an external
 * reference where the suite has one, TPC-H at SF 0.01, else against vanilla Spark), and writes a report
 * (console, Markdown, SVG, CSV) with answers and plans into a results folder.
 */
public final class TpchBenchmark {
  /** Scale factor of trino-tpch's reference answers. */
  static final double REFERENCE_SCALE = TpchWorkload.REFERENCE_SCALE;

  private TpchBenchmark() {}

  public static void main(String[] args) throws IOException {
    BenchmarkOptions options;
    try {
      options = BenchmarkOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    PrintStream out = System.out;
    try {
      for (Engine engine : options.engines()) {
        if (engine != Engine.COMET) {
          engine.checkAvailable(); // fail before generating data or starting anything
        }
      }
    } catch (IllegalStateException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    if (options.engines().contains(Engine.COMET)
        && (options.cometJar() == null || !Files.isRegularFile(options.cometJar()))) {
      throw new IllegalStateException("--engines names comet but --comet-jar is missing or not a file: "
          + options.cometJar() + ". bench/tpch.sh fetches the jar when --engines names comet.");
    }
    TpchDataset data = ensureData(options, out);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
    Path resultsDir = options.resultsDir().resolve(
        options.suite().id() + "-sf" + TpchDataset.scaleText(options.scaleFactor()) + "-" + stamp);
    Files.createDirectories(resultsDir);
    out.println("Results: " + resultsDir);

    List<String> jvmFlags = jvmFlags();
    Map<Engine, WorkerProcess> workers = new LinkedHashMap<>();
    List<QueryResult> results = new ArrayList<>();
    try {
      for (Engine engine : options.engines()) {
        out.printf(Locale.ROOT, "Starting the %s JVM (-Xmx%s)...%n", engine.id(), options.childHeap());
        List<Path> extraJars = engine == Engine.COMET ? List.of(options.cometJar()) : List.of();
        WorkerProcess worker = WorkerProcess.start(engine, options, data, resultsDir, jvmFlags, extraJars);
        if (worker.failure() != null) {
          out.println("  " + engine.id() + " failed to start: " + worker.failure());
        }
        workers.put(engine, worker);
      }
      int done = 0;
      for (String query : options.queries()) {
        results.add(runQuery(query, options, workers, resultsDir, out));
        done++;
        out.printf(Locale.ROOT, "  [%d/%d queries done]%n", done, options.queries().size());
      }
    } finally {
      workers.values().forEach(WorkerProcess::close);
    }
    BenchmarkReport report = new BenchmarkReport(options, data, results, commandLine(args));
    out.println();
    out.print(report.console());
    Files.writeString(resultsDir.resolve("report.md"), report.markdown(), StandardCharsets.UTF_8);
    Files.writeString(resultsDir.resolve("chart.svg"), report.svg(), StandardCharsets.UTF_8);
    Files.writeString(resultsDir.resolve("times.csv"), report.csv(), StandardCharsets.UTF_8);
    out.println("Wrote " + resultsDir.resolve("report.md") + ", chart.svg, times.csv, answers/, plans/, logs/");
    boolean allOk = results.stream().allMatch(QueryResult::allAnswersOk);
    if (!allOk) {
      out.println("SOME ANSWERS ARE WRONG OR MISSING: see the answers column.");
      System.exit(1);
    }
  }

  private static TpchDataset ensureData(BenchmarkOptions options, PrintStream out) {
    Workload suite = options.suite();
    Path dir = options.dataDir().resolve(TpchDataset.directoryName(options.scaleFactor()));
    if (Files.isRegularFile(dir.resolve(suite.marker()))) {
      return suite.ensureData(null, options.dataDir(), options.scaleFactor(), out); // no Spark needed
    }
    SparkSession spark = TpchSpark.session(Engine.VANILLA, "local[*]", options.shufflePartitions(), Map.of());
    try {
      return suite.ensureData(spark, options.dataDir(), options.scaleFactor(), out);
    } finally {
      spark.stop();
    }
  }

  private static QueryResult runQuery(String number, BenchmarkOptions options, Map<Engine, WorkerProcess> workers,
      Path resultsDir, PrintStream out) throws IOException {
    BenchQuery query = options.suite().query(number, options.scaleFactor());
    Map<Engine, WorkerProtocol.Reply> warmups = new EnumMap<>(Engine.class);
    Map<Engine, List<WorkerProtocol.Reply>> timed = new EnumMap<>(Engine.class);
    for (WorkerProcess worker : workers.values()) {
      WorkerProtocol.Reply reply = worker.run(number, "warmup");
      warmups.put(worker.engine(), reply);
      timed.put(worker.engine(), new ArrayList<>());
      out.printf(Locale.ROOT, "%-5s %-8s warm-up %s%n", query.name(), worker.engine().id(), progressText(reply));
    }
    List<WorkerProcess> order = new ArrayList<>(workers.values());
    for (int rep = 1; rep <= options.reps(); rep++) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-5s rep %d/%d:", query.name(), rep, options.reps()));
      for (WorkerProcess worker : order) {
        WorkerProtocol.Reply reply = worker.run(number, "rep" + rep);
        timed.get(worker.engine()).add(reply);
        line.append(String.format(Locale.ROOT, "  %s %s", worker.engine().id(), progressText(reply)));
      }
      out.println(line);
      if (!order.isEmpty()) {
        order.add(order.remove(0)); // rotate who goes first, so no engine always runs right after another
      }
    }
    Map<Engine, EngineResult> byEngine = new EnumMap<>(Engine.class);
    for (Engine engine : workers.keySet()) {
      String check = check(query, engine, warmups, timed.get(engine), options, resultsDir);
      byEngine.put(engine, new EngineResult(engine, warmups.get(engine), timed.get(engine), check));
      if (!check.startsWith("ok") && !check.startsWith("anchor")) {
        out.printf(Locale.ROOT, "%-5s %-8s answer: %s%n", query.name(), engine.id(), check);
      }
    }
    return new QueryResult(query.name(), byEngine);
  }

  private static String progressText(WorkerProtocol.Reply reply) {
    return reply.failed() ? "ERROR" : String.format(Locale.ROOT, "%.0f ms", reply.millis());
  }

  /** The verdict on one engine's answer to one query. */
  private static String check(BenchQuery query, Engine engine, Map<Engine, WorkerProtocol.Reply> warmups,
      List<WorkerProtocol.Reply> timed, BenchmarkOptions options, Path resultsDir) throws IOException {
    WorkerProtocol.Reply warmup = warmups.get(engine);
    if (warmup.failed()) {
      return "ERROR: " + warmup.error();
    }
    for (WorkerProtocol.Reply reply : timed) {
      if (reply.failed()) {
        return "ERROR in " + reply.label() + ": " + reply.error();
      }
      if (!reply.consistency().equals("same")) {
        return "WRONG: " + reply.label() + " " + reply.consistency();
      }
    }
    ResultTable actual = readAnswer(resultsDir, engine, query);
    Workload suite = options.suite();
    Optional<ResultTable> reference = suite.reference(query, options.scaleFactor());
    if (reference.isPresent()) {
      return suite.compare(query, reference.get(), actual)
          .map(d -> "WRONG vs reference: " + d).orElse("ok (reference)");
    }
    if (engine == Engine.VANILLA) {
      return "anchor (unchecked: no reference at SF " + TpchDataset.scaleText(options.scaleFactor()) + ")";
    }
    WorkerProtocol.Reply vanilla = warmups.get(Engine.VANILLA);
    if (vanilla == null || vanilla.failed()) {
      return "unchecked (no vanilla answer to compare with)";
    }
    Optional<String> difference = suite.compare(query, readAnswer(resultsDir, Engine.VANILLA, query), actual);
    return difference.map(d -> "WRONG vs vanilla: " + d).orElse("ok (= vanilla)");
  }

  private static ResultTable readAnswer(Path resultsDir, Engine engine, BenchQuery query) throws IOException {
    Path file = resultsDir.resolve("answers").resolve(engine.id()).resolve(query.name() + ".result");
    return ResultTable.parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
  }

  /** The JVM flags every Spark JVM needs (the root pom's rowmatch.jvm.flags, copied into a resource). */
  static List<String> jvmFlags() throws IOException {
    try (InputStream in = TpchBenchmark.class.getClassLoader().getResourceAsStream("rowmatch-jvm-flags.txt")) {
      if (in == null) {
        throw new IllegalStateException("rowmatch-jvm-flags.txt is not on the classpath: build the bench module");
      }
      String flags = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      if (flags.contains("${")) {
        throw new IllegalStateException("rowmatch-jvm-flags.txt was not filtered by Maven: " + flags);
      }
      return Arrays.asList(flags.split("\\s+"));
    }
  }

  private static String commandLine(String[] args) {
    return ("bench/tpch.sh " + String.join(" ", args)).strip();
  }
}
