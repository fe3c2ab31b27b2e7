package io.rowmatch.bench.tpch;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The parent's handle on one engine's worker JVM ({@link EngineWorker}). */
public final class WorkerProcess implements AutoCloseable {
  private final Engine engine;
  private final Process process;
  private final BufferedReader replies;
  private final BufferedWriter commands;
  private final Path log;
  private String failure;

  private WorkerProcess(Engine engine, Process process, Path log) {
    this.engine = engine;
    this.process = process;
    this.log = log;
    this.replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.commands = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
  }

  /**
   * Whether every engine's heap (and Comet's off-heap memory) fits in 70% of this machine's memory, so the
   * workers may touch all of it at start.
   */
  static boolean preTouchFits(BenchmarkOptions options) {
    if (!(java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os)) {
      return false;
    }
    long heap = bytes(options.childHeap());
    long total = 0;
    for (Engine e : options.engines()) {
      total += heap + (e == Engine.COMET ? bytes(Engine.COMET_OFF_HEAP_SIZE) : 0);
    }
    return heap > 0 && total <= os.getTotalMemorySize() / 10 * 7;
  }

  /** A JVM memory size ("512m", "5g", "1048576") in bytes, or -1 when it is not one. */
  static long bytes(String size) {
    String s = size.trim().toLowerCase(java.util.Locale.ROOT);
    long unit = 1;
    char last = s.isEmpty() ? ' ' : s.charAt(s.length() - 1);
    if (last == 'k' || last == 'm' || last == 'g' || last == 't') {
      unit = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : last == 'g' ? 1L << 30 : 1L << 40;
      s = s.substring(0, s.length() - 1);
    }
    try {
      return Long.parseLong(s) * unit;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Starts the worker with the same JVM flags and classpath as this JVM (plus extra jars) and waits for it. */
  public static WorkerProcess start(Engine engine, BenchmarkOptions options, TpchDataset data, Path resultsDir,
      List<String> jvmFlags, List<Path> extraJars) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.add("-Xmx" + options.childHeap());
    command.add("-XX:+UseParallelGC");
    // A fixed heap, touched once at start where the machine has the memory for every engine's: otherwise runs pay
    // the first touch of heap pages the JVM grows into, and an engine that allocates little on the heap keeps
    // paying it for many runs (TPC-H q1 at SF 1 on 2 cores: Rowmatch's runs alternated 2.0-2.9 s / 1.1-1.5 s with
    // 20-30K page faults per half second in the slow ones; 1.1-1.45 s from the first run with the heap
    // pre-touched). Every engine's worker gets the same flags.
    command.add("-Xms" + options.childHeap());
    if (preTouchFits(options)) {
      command.add("-XX:+AlwaysPreTouch");
    }
    StringBuilder classpath = new StringBuilder(System.getProperty("java.class.path"));
    for (Path jar : extraJars) {
      classpath.append(java.io.File.pathSeparator).append(jar.toAbsolutePath());
    }
    command.addAll(Arrays.asList("-cp", classpath.toString(), EngineWorker.class.getName()));
    command.addAll(workerArguments(engine, options, data, resultsDir));
    Path log = resultsDir.resolve("logs").resolve(engine.id() + ".log");
    try {
      Files.createDirectories(log.getParent());
      Process process = new ProcessBuilder(command)
          .redirectError(log.toFile())
          .start();
      WorkerProcess worker = new WorkerProcess(engine, process, log);
      worker.awaitReady();
      return worker;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the " + engine.id() + " worker JVM", e);
    }
  }

  /** The arguments of {@link EngineWorker#main} (read back by {@link WorkerProtocol#options}). */
  static List<String> workerArguments(Engine engine, BenchmarkOptions options, TpchDataset data, Path resultsDir) {
    List<String> arguments = new ArrayList<>(Arrays.asList(
        "--suite", options.suite().id(),
        "--engine", engine.id(),
        "--master", "local[*]",
        "--shuffle-partitions", Integer.toString(options.shufflePartitions()),
        "--data-dir", data.dir().toAbsolutePath().toString(),
        "--sf", Double.toString(data.scaleFactor()),
        "--results-dir", resultsDir.toAbsolutePath().toString()));
    options.confs().forEach((key, value) -> {
      arguments.add("--" + WorkerProtocol.CONF_PREFIX + key);
      arguments.add(value);
    });
    return arguments;
  }

  public Engine engine() {
    return engine;
  }

  /** Empty when the worker is up; else why it is not (the run goes on without it). */
  public String failure() {
    return failure;
  }

  private void awaitReady() throws IOException {
    String line = nextProtocolLine();
    if (line == null) {
      failure = "the " + engine.id() + " JVM exited before it was ready; see " + log;
    } else if (line.startsWith(WorkerProtocol.FAILED)) {
      failure = line.substring(WorkerProtocol.FAILED.length()).strip() + " (log: " + log + ")";
    }
  }

  public WorkerProtocol.Reply run(String query, String label) {
    if (failure != null) {
      return WorkerProtocol.Reply.error(query, label, failure);
    }
    try {
      commands.write("run " + query + " " + label + "\n");
      commands.flush();
      String line = nextProtocolLine();
      if (line == null) {
        failure = "the " + engine.id() + " JVM died during " + query + " (" + label + "); see " + log;
        return WorkerProtocol.Reply.error(query, label, failure);
      }
      if (line.startsWith(WorkerProtocol.FAILED)) {
        return WorkerProtocol.Reply.error(query, label, line);
      }
      return WorkerProtocol.Reply.parse(line);
    } catch (IOException e) {
      failure = "lost the " + engine.id() + " JVM: " + e.getMessage() + "; see " + log;
      return WorkerProtocol.Reply.error(query, label, failure);
    }
  }

  private String nextProtocolLine() throws IOException {
    for (String line = replies.readLine(); line != null; line = replies.readLine()) {
      if (line.startsWith("@@")) {
        return line;
      }
    }
    return null;
  }

  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        commands.write("quit\n");
        commands.flush();
      }
    } catch (IOException ignored) {
      // the process is gone already
    }
    try {
      if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
