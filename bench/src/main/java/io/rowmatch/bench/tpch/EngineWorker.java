package io.rowmatch.bench.tpch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.spark.sql.SparkSession;

/**
 * The child JVM of one engine. It keeps its Spark session alive and runs the queries the parent sends
 * over stdin, so that engines can be interleaved query by query without restarting Spark.
 *
 * <p>Protocol (one line each; stdout carries only these, Spark's output goes to stderr):
 * <pre>
 * parent: run &lt;query&gt; &lt;label&gt;        child: {@value WorkerProtocol#RESULT} fields... (see WorkerProtocol)
 * parent: quit
 * child at start: {@value WorkerProtocol#READY} or {@value WorkerProtocol#FAILED} message
 * </pre>
 * The first run of a query (the warm-up) saves the answer to {@code answers/<engine>/qN.result} and the
 * final plan to {@code plans/<engine>/qN.txt}; later runs are checked against that first answer.
 */
public final class EngineWorker {
  private EngineWorker() {}

  public static void main(String[] args) throws IOException {
    PrintStream protocol = System.out;
    System.setOut(System.err); // anything else printed must not look like a reply
    Map<String, String> options = WorkerProtocol.options(args);
    Engine engine = Engine.parse(options.get("engine"));
    Workload suite = Workload.of(options.getOrDefault("suite", "tpch"));
    double scaleFactor = Double.parseDouble(options.get("sf"));
    Path resultsDir = Path.of(options.get("results-dir"));
    SparkSession spark;
    try {
      spark = TpchSpark.session(engine, options.get("master"),
          Integer.parseInt(options.get("shuffle-partitions")), confs(options));
      spark.sparkContext().setLogLevel("WARN");
      TpchDataset.read(Path.of(options.get("data-dir")), scaleFactor, suite.marker()).registerViews(spark);
    } catch (RuntimeException | Error e) {
      protocol.println(WorkerProtocol.FAILED + " " + WorkerProtocol.clean(describe(e)));
      protocol.flush();
      e.printStackTrace();
      System.exit(2);
      return;
    }
    protocol.println(WorkerProtocol.READY + " " + engine.id());
    protocol.flush();
    Map<String, ResultTable> firstAnswers = new HashMap<>();
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = commands.readLine(); line != null; line = commands.readLine()) {
      String[] words = line.strip().split(" ");
      if (words[0].equals("quit")) {
        break;
      }
      if (!words[0].equals("run") || words.length != 3) {
        protocol.println(WorkerProtocol.FAILED + " unknown command: " + WorkerProtocol.clean(line));
        protocol.flush();
        continue;
      }
      String number = words[1];
      WorkerProtocol.Reply reply;
      try {
        reply = runOnce(spark, engine, suite, suite.query(number, scaleFactor), words[2], resultsDir, firstAnswers);
      } catch (RuntimeException | Error e) { // one bad query must not take the engine's other queries down
        e.printStackTrace();
        reply = WorkerProtocol.Reply.error(number, words[2], describe(e));
      }
      protocol.println(reply.toLine());
      protocol.flush();
    }
    spark.stop();
  }

  /** The --conf settings the parent passed on. */
  static Map<String, String> confs(Map<String, String> options) {
    Map<String, String> confs = new TreeMap<>();
    options.forEach((key, value) -> {
      if (key.startsWith(WorkerProtocol.CONF_PREFIX)) {
        confs.put(key.substring(WorkerProtocol.CONF_PREFIX.length()), value);
      }
    });
    return confs;
  }

  private static WorkerProtocol.Reply runOnce(SparkSession spark, Engine engine, Workload suite, BenchQuery query,
      String label, Path resultsDir, Map<String, ResultTable> firstAnswers) {
    System.err.printf(Locale.ROOT, "=== %s %s %s%n", engine.id(), query.name(), label);
    QueryRun run;
    try {
      run = QueryRun.execute(spark, query, engine.operatorPrefix());
    } catch (Exception e) { // Spark's AnalysisException/ParseException are checked exceptions to Java
      e.printStackTrace();
      return WorkerProtocol.Reply.error(query.name(), label, describe(e));
    }
    String consistency = "first";
    ResultTable first = firstAnswers.get(query.name());
    try {
      if (first == null) {
        firstAnswers.put(query.name(), run.answer());
        save(resultsDir.resolve("answers").resolve(engine.id()).resolve(query.name() + ".result"),
            run.answer().format());
        save(resultsDir.resolve("plans").resolve(engine.id()).resolve(query.name() + ".txt"), run.plan());
      } else {
        Optional<String> difference = suite.compare(query, first, run.answer());
        consistency = difference.map(d -> "differs from this engine's first run: " + d).orElse("same");
      }
    } catch (IOException | RuntimeException e) {
      consistency = "cannot save or compare: " + describe(e);
    }
    return new WorkerProtocol.Reply(query.name(), label, run.millis(), run.answer().rows().size(),
        run.inspection().operatorCount(), run.inspection().operatorSummary(),
        String.join(" ; ", run.inspection().fallbackReasons()), consistency, "");
  }

  private static void save(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = root == e ? e.toString() : e + " (cause: " + root + ")";
    return text.length() > 600 ? text.substring(0, 600) + "..." : text;
  }

}
