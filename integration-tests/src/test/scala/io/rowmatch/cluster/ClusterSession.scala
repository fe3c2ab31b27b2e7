package io.rowmatch.cluster

import java.nio.charset.StandardCharsets
import java.nio.file.Path
import java.util.concurrent.TimeUnit

import org.apache.spark.scheduler.{SparkListener, SparkListenerExecutorAdded, SparkListenerExecutorRemoved,
  SparkListenerTaskEnd}
import org.apache.spark.sql.SparkSession
import org.apache.spark.{ExceptionFailure, TaskFailedReason}

import io.rowmatch.spark.testing.TestFaults

/**
 * A driver (this JVM) on a [[StandaloneCluster]]: a SparkSession against its master, with one executor of one
 * core and 1 GiB per Worker, and a listener that records executors coming and going and every failed task.
 */
final class ClusterSession(val spark: SparkSession, val events: ClusterEvents) extends AutoCloseable {
  /** Waits until `count` executors are registered with the driver. */
  def awaitExecutors(count: Int, timeoutSeconds: Int = 120): Set[String] = {
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds)
    while (events.liveExecutors.size < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(s"only ${events.liveExecutors} of $count executors registered within" +
          s" $timeoutSeconds s")
      }
      Thread.sleep(100)
    }
    events.liveExecutors
  }

  override def close(): Unit = {
    spark.stop()
    SparkSession.clearActiveSession()
    SparkSession.clearDefaultSession()
  }
}

/**
 * What the driver saw, updated by Spark's listener bus. Registered through spark.extraListeners, so it sees
 * the first executors too; the instance Spark creates announces itself in `ClusterEvents.latest`.
 */
final class ClusterEvents extends SparkListener {
  ClusterEvents.latest = this

  @volatile private var live = Set.empty[String]
  @volatile private var removed = Seq.empty[(String, String)]
  @volatile private var failures = Seq.empty[String]

  def liveExecutors: Set[String] = live
  def removedExecutors: Seq[(String, String)] = removed
  /** One line per failed task attempt: the failure's class and message as the driver received them. */
  def taskFailures: Seq[String] = failures

  override def onExecutorAdded(e: SparkListenerExecutorAdded): Unit = synchronized { live += e.executorId }

  override def onExecutorRemoved(e: SparkListenerExecutorRemoved): Unit = synchronized {
    live -= e.executorId
    removed :+= e.executorId -> e.reason
  }

  override def onTaskEnd(e: SparkListenerTaskEnd): Unit = e.reason match {
    case f: ExceptionFailure => synchronized { failures :+= s"${f.className}: ${f.description}" }
    case f: TaskFailedReason => synchronized { failures :+= f.toErrorString }
    case _ =>
  }
}

object ClusterEvents {
  @volatile var latest: ClusterEvents = _
}

object ClusterSession {
  val Extension = "io.rowmatch.spark.RowmatchExtensions"

  /** The JVM flags every Spark JVM needs (the root pom's rowmatch.jvm.flags, copied by the bench module). */
  lazy val jvmFlags: Seq[String] = {
    val in = getClass.getClassLoader.getResourceAsStream("rowmatch-jvm-flags.txt")
    require(in != null, "rowmatch-jvm-flags.txt (module bench) is not on the test class path")
    val text = try new String(in.readAllBytes(), StandardCharsets.UTF_8).strip() finally in.close()
    require(!text.contains("${"), s"rowmatch-jvm-flags.txt was not filtered by Maven: $text")
    text.split("\\s+").toSeq
  }

  /**
   * A session on `cluster`. `jar`: the shaded jar given through spark.jars (None: the application ships no
   * jar, so executors cannot load Rowmatch classes). `settings` come last and win.
   */
  def start(cluster: StandaloneCluster, appName: String, jar: Option[Path],
      settings: Map[String, String] = Map.empty): ClusterSession = {
    val builder = SparkSession.builder()
      .master(cluster.masterUrl)
      .appName(appName)
      .config("spark.sql.extensions", Extension)
      .config("spark.rowmatch.placement.enabled", "false") // the operators, wherever they pay
      .config("spark.driver.host", "127.0.0.1")
      .config("spark.driver.bindAddress", "127.0.0.1")
      .config("spark.executor.memory", "1g")
      .config("spark.executor.cores", "1")
      .config("spark.cores.max", cluster.workers.size.toString)
      .config("spark.executor.extraJavaOptions", jvmFlags.mkString(" "))
      .config("spark.ui.enabled", "false")
      .config("spark.ui.showConsoleProgress", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.task.maxFailures", "4")
      .config("spark.extraListeners", classOf[ClusterEvents].getName)
      .config(TestFaults.ENABLED, "true") // the fault tests' settings take effect only with it
    jar.foreach(j => builder.config("spark.jars", j.toString))
    settings.foreach { case (k, v) => builder.config(k, v) }
    ClusterEvents.latest = null
    val spark = builder.getOrCreate()
    require(ClusterEvents.latest != null, "Spark did not create the ClusterEvents listener")
    new ClusterSession(spark, ClusterEvents.latest)
  }
}
