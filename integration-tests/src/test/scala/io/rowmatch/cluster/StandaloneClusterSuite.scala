package io.rowmatch.cluster

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.rowmatch.bench.tpch.{AnswerComparator, PlanInspector, SparkResults, TpchDataset, TpchQuery}
import io.rowmatch.tags.ClusterTest
import io.rowmatch.tpch.{JoinStrategy, TpchTestData}

/**
 * Rowmatch on a real Spark standalone cluster: a Master and two Workers, each its own JVM on 127.0.0.1, and
 * executors (one core, 1 GiB) started by the Workers. The application ships the plugin as the shaded jar
 * through spark.jars and turns it on with spark.sql.extensions, as a user's spark-submit would; the executors'
 * own class path (SPARK_HOME/jars) has no Rowmatch class. All 22 TPC-H queries at SF 0.01 run with broadcast
 * joins (so build sides travel to executors serialized), every answer checked against trino-tpch's reference
 * answers, and the Rowmatch operators must have run on the executors (their output metrics).
 *
 * Every test is tagged ClusterTest. Every JVM started here is killed in afterAll, and by a shutdown hook if
 * the test JVM dies first.
 */
class StandaloneClusterSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val clusterDir = Path.of("target", "cluster").toAbsolutePath
  private var cluster: StandaloneCluster = _
  private var session: ClusterSession = _
  private var jar: Path = _
  private var data: TpchDataset = _

  private def spark: SparkSession = session.spark

  override def beforeAll(): Unit = {
    super.beforeAll()
    jar = ShadedJar.locate()
    data = generateData()
    cluster = StandaloneCluster.start(clusterDir, ClusterSession.jvmFlags)
    session = startSession("rowmatch-cluster-tpch", Some(jar))
  }

  override def afterAll(): Unit = {
    try {
      if (session != null) session.close()
    } finally {
      try {
        val alive = ClusterProcesses.destroyAll()
        assert(ClusterProcesses.liveTree().isEmpty, "a cluster process survived afterAll")
        info(s"stopped: ${alive.mkString(", ")}")
      } finally super.afterAll()
    }
  }

  /** TPC-H SF 0.01 (generated once per test run by a short local session; the cluster only reads it). */
  private def generateData(): TpchDataset = {
    val local = SparkSession.builder().master("local[2]").appName("tpch-data")
      .config("spark.ui.enabled", "false").getOrCreate()
    try {
      val d = TpchTestData.dataset(local)
      // Executors run in their own working directories: absolute paths.
      new TpchDataset(d.dir.toAbsolutePath, d.scaleFactor, d.rowCounts, d.generationSeconds)
    } finally {
      local.stop()
      SparkSession.clearActiveSession()
      SparkSession.clearDefaultSession()
    }
  }

  private def startSession(name: String, shipped: Option[Path], settings: Map[String, String] = Map.empty)
      : ClusterSession = {
    val s = ClusterSession.start(cluster, name, shipped, JoinStrategy.Broadcast.settings ++ settings)
    s.awaitExecutors(cluster.workers.size)
    data.registerViews(s.spark)
    s
  }

  /** The plan that ran (AQE's final plan, stages unwrapped), flat. */
  private def executedNodes(df: DataFrame): Seq[SparkPlan] = {
    def flatten(p: SparkPlan): Seq[SparkPlan] = p match {
      case a: AdaptiveSparkPlanExec => flatten(a.executedPlan)
      case q: QueryStageExec => flatten(q.plan)
      case other => other +: (other.children ++ other.subqueries).flatMap(flatten)
    }
    flatten(df.queryExecution.executedPlan)
  }

  /** Runs a TPC-H query, checks its answer against the reference; returns the frame that produced it. */
  private def runTpch(number: Int): DataFrame = {
    val query = TpchQuery.load(number)
    val statements = query.statements().asScala
    statements.init.foreach(s => spark.sql(s).collect())
    val frame = spark.sql(query.answerStatement())
    val rows = frame.collectAsList()
    val difference = AnswerComparator.compare(query, query.reference(), SparkResults.of(frame, rows, query.name()))
    assert(difference.isEmpty, s"cluster ${query.name()}: ${difference.orElse("")}")
    frame
  }

  private def rowmatchNodes(frame: DataFrame): Seq[SparkPlan] =
    executedNodes(frame).filter(_.nodeName.startsWith("Rowmatch"))

  test("the executors' class path holds no Rowmatch class; the application ships the shaded jar", ClusterTest) {
    assert(cluster.layout.linked.nonEmpty)
    assert(cluster.layout.leftOut.exists(_.contains("spark-plugin")),
      s"the plugin's own classes should have been left out of SPARK_HOME/jars: ${cluster.layout.leftOut}")
    val executors = cluster.executors()
    assert(executors.size == 2, s"expected one executor JVM per Worker, found $executors")
    val logs = cluster.executorLogs().map(p => Files.readString(p))
    assert(logs.exists(_.contains(jar.getFileName.toString)),
      s"no executor log mentions fetching ${jar.getFileName}")
  }

  for (number <- 1 to TpchQuery.COUNT) {
    test(s"TPC-H q$number on the cluster matches the reference answer, with Rowmatch operators", ClusterTest) {
      val frame = runTpch(number)
      val inspection = PlanInspector.inspect(frame.queryExecution.executedPlan, "Rowmatch")
      assert(inspection.operatorCount() >= 1,
        s"q$number: no Rowmatch operator (${inspection.operatorSummary()}; ${inspection.fallbackReasons()})")
      val outputRows = rowmatchNodes(frame).flatMap(_.metrics.get("numOutputBatches")).map(_.value).sum
      assert(outputRows > 0, s"q$number: the Rowmatch operators report no output batch from the executors")
    }
  }

  test("after the queries, no executor holds a task allocator or Arrow memory", ClusterTest) {
    val reports = ExecutorProbe.memory(spark, session.events.liveExecutors)
    assert(reports.keySet == session.events.liveExecutors, s"reports $reports")
    reports.values.foreach { r =>
      assert(r.openAllocators == 0 && r.arrowBytes == 0, s"executor ${r.executorId} holds Arrow memory: $r")
    }
  }
}
