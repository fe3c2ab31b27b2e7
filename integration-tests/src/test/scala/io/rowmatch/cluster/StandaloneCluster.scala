package io.rowmatch.cluster

import java.io.File
import java.net.{InetSocketAddress, ServerSocket}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters._

/**
 * A Spark standalone cluster on 127.0.0.1: one Master and `workers` Workers, each a separate JVM running
 * Spark's own `org.apache.spark.deploy.master.Master` / `org.apache.spark.deploy.worker.Worker` from the
 * jars of a [[SparkHomeLayout]] (no Rowmatch classes). Each Worker offers `coresPerWorker` cores and
 * `memoryPerWorker`, so with one core per executor each application gets one executor per Worker.
 * Logs go to `dir/logs`; executors' stdout/stderr to each Worker's `dir/work-N/<app>/<executor>/`.
 */
final class StandaloneCluster private (
    val dir: Path,
    val layout: SparkHomeLayout,
    val masterUrl: String,
    val master: Process,
    val workers: Seq[Process],
    val workDirs: Seq[Path]) extends AutoCloseable {

  /** The executor JVMs running now (children of the Workers), with their Spark executor ids. */
  def executors(): Seq[(ProcessHandle, String)] =
    workers.flatMap(w => w.toHandle.descendants().iterator().asScala.toSeq).filter(_.isAlive).flatMap { h =>
      val args = h.info().arguments().orElse(Array.empty[String]).toSeq
      val at = args.indexOf("--executor-id")
      if (args.exists(_.contains("CoarseGrainedExecutorBackend")) && at >= 0 && at + 1 < args.size)
        Some(h -> args(at + 1))
      else None
    }

  /** The executors' stderr files (Spark's ExecutorRunner writes them under each Worker's work dir). */
  def executorLogs(): Seq[Path] = workDirs.flatMap { w =>
    if (!Files.isDirectory(w)) Nil
    else scala.util.Using.resource(Files.walk(w)) { s =>
      s.iterator().asScala.filter(_.getFileName.toString == "stderr").toList
    }
  }

  override def close(): Unit = ClusterProcesses.destroyAll()
}

object StandaloneCluster {
  private val Java = Path.of(System.getProperty("java.home"), "bin", "java").toString

  def start(dir: Path, jvmFlags: Seq[String], workers: Int = 2, coresPerWorker: Int = 1,
      memoryPerWorker: String = "1g", timeoutSeconds: Int = 120): StandaloneCluster = {
    SparkHomeLayout.deleteRecursively(dir)
    val layout = SparkHomeLayout.create(dir.resolve("spark-home"))
    val logs = Files.createDirectories(dir.resolve("logs"))
    val port = freePort()
    val masterUrl = s"spark://127.0.0.1:$port"
    val master = launch("master", layout, jvmFlags, logs, "org.apache.spark.deploy.master.Master",
      Seq("--host", "127.0.0.1", "--port", port.toString, "--webui-port", freePort().toString))
    val cluster = try {
      awaitLog(master, logs.resolve("master.log"), "I have been elected leader", timeoutSeconds)
      val workDirs = (1 to workers).map(i => Files.createDirectories(dir.resolve(s"work-$i")))
      val started = workDirs.zipWithIndex.map { case (work, i) =>
        launch(s"worker-${i + 1}", layout, jvmFlags, logs, "org.apache.spark.deploy.worker.Worker",
          Seq("--host", "127.0.0.1", "--port", freePort().toString, "--webui-port", freePort().toString,
            "--cores", coresPerWorker.toString, "--memory", memoryPerWorker, "--work-dir", work.toString, masterUrl))
      }
      started.zipWithIndex.foreach { case (w, i) =>
        awaitLog(w, logs.resolve(s"worker-${i + 1}.log"), "Successfully registered with master", timeoutSeconds)
      }
      new StandaloneCluster(dir, layout, masterUrl, master, started, workDirs)
    } catch {
      case e: Throwable =>
        ClusterProcesses.destroyAll()
        throw e
    }
    cluster
  }

  private def launch(name: String, layout: SparkHomeLayout, jvmFlags: Seq[String], logs: Path, mainClass: String,
      args: Seq[String]): Process = {
    val command = Seq(Java) ++ jvmFlags ++ Seq("-Xmx256m", "-cp",
      layout.conf.toString + File.separator + File.pathSeparator + layout.jars.toString + File.separator + "*",
      mainClass) ++ args
    val builder = new ProcessBuilder(command.asJava)
      .redirectErrorStream(true)
      .redirectOutput(logs.resolve(s"$name.log").toFile)
    val env = builder.environment()
    env.put("SPARK_HOME", layout.home.toString)
    env.put("SPARK_CONF_DIR", layout.conf.toString)
    env.put("SPARK_SCALA_VERSION", "2.13")
    env.put("SPARK_LOCAL_IP", "127.0.0.1")
    env.remove("SPARK_CLASSPATH")
    env.remove("SPARK_DIST_CLASSPATH")
    val process = builder.start()
    ClusterProcesses.register(name, process)
    process
  }

  private def awaitLog(process: Process, log: Path, line: String, timeoutSeconds: Int): Unit = {
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds)
    def text = if (Files.exists(log)) Files.readString(log, StandardCharsets.UTF_8) else ""
    while (!text.contains(line)) {
      if (!process.isAlive) {
        throw new IllegalStateException(s"$log: the process exited (${process.exitValue()}) before logging" +
          s" '$line':\n${tail(text)}")
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(s"$log: no '$line' within $timeoutSeconds s:\n${tail(text)}")
      }
      Thread.sleep(100)
    }
  }

  def tail(text: String, lines: Int = 40): String = text.linesIterator.toSeq.takeRight(lines).mkString("\n")

  private def freePort(): Int = {
    val socket = new ServerSocket()
    try {
      socket.bind(new InetSocketAddress("127.0.0.1", 0))
      socket.getLocalPort
    } finally socket.close()
  }
}
