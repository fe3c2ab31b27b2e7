package io.rowmatch.spark

import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.{BeforeAndAfterAll, BeforeAndAfterEach}

import io.rowmatch.spark.join.BroadcastJoinTables
import io.rowmatch.spark.memory.{SpillFile, TaskArrowMemory}
import io.rowmatch.spark.rules.FallbackReasons

/**
 * Differential checks against vanilla Spark: every query runs with the plugin off and on in the same
 * session; results must be equal (order ignored unless asked; a relative tolerance on floating columns
 * only when asked, for sums whose order Spark itself does not fix), and the plan that ran must contain the
 * expected Rowmatch operators. After every test no task allocator is open and Spark's Arrow root holds no
 * memory: a leaked buffer fails the test.
 */
trait RowmatchQueryTest extends AnyFunSuite with BeforeAndAfterAll with BeforeAndAfterEach {

  protected lazy val spark: SparkSession = rowmatchSession("local[2]")

  /**
   * The operator suites' session: embedded Spark with the plugin, AQE on, 4 shuffle partitions, batches of 64 rows
   * (many batches and group growth per partition) and the placement policy off (operator suites run small
   * row-based inputs, where every replacement adds transitions: they test the operators; PlacementSuite and the
   * TPC suites test where the policy keeps them). {@code settings} are added last, so they override these.
   */
  protected def rowmatchSession(master: String, settings: (String, String)*): SparkSession = {
    val builder = SparkSession.builder().master(master).appName(getClass.getSimpleName)
    (Seq("spark.sql.extensions" -> "io.rowmatch.spark.RowmatchExtensions", "spark.sql.shuffle.partitions" -> "4",
      "spark.ui.enabled" -> "false", "spark.sql.adaptive.enabled" -> "true", "spark.rowmatch.batchSize" -> "64",
      "spark.rowmatch.placement.enabled" -> "false") ++ settings).foreach { case (k, v) => builder.config(k, v) }
    builder.getOrCreate()
  }

  override protected def afterAll(): Unit = {
    try spark.stop() finally super.afterAll()
  }

  override protected def afterEach(): Unit = {
    try assertNoArrowMemoryHeld() finally super.afterEach()
  }

  /**
   * No task allocator open, no broadcast build side in use, and Spark's Arrow root back to zero once the
   * idle broadcast build sides are closed (they outlive tasks by design: cached while idle). afterEach
   * checks it; tests that check in between queries call it.
   */
  protected def assertNoArrowMemoryHeld(): Unit = {
    // A query that failed, or that AQE finished early, returns while Spark still kills its other tasks: their
    // allocators close when they end. Wait for them (a leak stays open and fails below).
    val deadline = System.nanoTime() + 10L * 1000 * 1000 * 1000
    while ((TaskArrowMemory.openAllocators() > 0 || BroadcastJoinTables.users() > 0) && System.nanoTime() < deadline) {
      Thread.sleep(20)
    }
    assert(TaskArrowMemory.openAllocators() == 0, "a Rowmatch task allocator was left open")
    assert(BroadcastJoinTables.users() == 0, "a task still holds a broadcast build side")
    BroadcastJoinTables.closeIdleNow()
    assert(BroadcastJoinTables.cached() == 0, "a broadcast build side is still cached")
    assert(TaskArrowMemory.rootAllocatedBytes() == 0, s"Arrow memory leaked: ${TaskArrowMemory.rootDescription()}")
    assert(SpillFile.openFiles() == 0, "a Rowmatch spill file was left behind")
  }

  protected def withConf[T](pairs: (String, String)*)(f: => T): T = {
    val conf = spark.conf
    val old = pairs.map { case (k, _) => k -> conf.getOption(k) }
    pairs.foreach { case (k, v) => conf.set(k, v) }
    try f finally old.foreach {
      case (k, Some(v)) => conf.set(k, v)
      case (k, None) => conf.unset(k)
    }
  }

  /** The plan that actually ran (AQE's final plan, stages unwrapped), as a flat list of nodes. */
  protected def executedNodes(df: DataFrame): Seq[SparkPlan] = {
    def flatten(p: SparkPlan): Seq[SparkPlan] = p match {
      case a: AdaptiveSparkPlanExec => flatten(a.executedPlan)
      case q: QueryStageExec => flatten(q.plan)
      case other => other +: other.children.flatMap(flatten)
    }
    flatten(df.queryExecution.executedPlan)
  }

  protected def rowmatchAggregates(df: DataFrame): Int =
    executedNodes(df).count(_.nodeName == "RowmatchHashAggregate")

  protected def fallbackReasons(df: DataFrame): Seq[String] = {
    import scala.jdk.CollectionConverters._
    FallbackReasons.collect(df.queryExecution.executedPlan).asScala.toSeq
  }

  /**
   * Runs `query` with the plugin off and on, compares, and checks the Rowmatch plan has at least
   * `minOperators` RowmatchHashAggregate nodes (exactly `exactOperators` when given). Returns the rows.
   */
  protected def checkAnswerAndOperator(
      query: => DataFrame,
      minOperators: Int = 1,
      exactOperators: Option[Int] = None,
      ordered: Boolean = false,
      tolerance: Double = 0.0): Seq[Row] = {
    val (rows, df) = checkAnswer(query, ordered, tolerance)
    val n = rowmatchAggregates(df)
    exactOperators match {
      case Some(e) => assert(n == e, s"expected $e RowmatchHashAggregate, found $n in\n${planText(df)}")
      case None => assert(n >= minOperators, s"expected >= $minOperators RowmatchHashAggregate, found $n in\n${planText(df)}")
    }
    rows
  }

  /**
   * Runs `query` with the plugin off and on and compares; then the plan that ran with the plugin must hold
   * every operator named in `mustRun` (node names, e.g. "RowmatchHashJoin") and no node of the Spark classes
   * in `noVanilla` (e.g. classOf[SortMergeJoinExec]: "no vanilla join of this kind remains"). Returns the rows.
   */
  protected def checkAnswerAndOperators(
      query: => DataFrame,
      mustRun: Seq[String],
      noVanilla: Seq[Class[_ <: SparkPlan]] = Nil,
      ordered: Boolean = false,
      tolerance: Double = 0.0): Seq[Row] = {
    val (rows, df) = checkAnswer(query, ordered, tolerance)
    val nodes = executedNodes(df)
    mustRun.foreach { name =>
      assert(nodes.exists(_.nodeName == name), s"expected a $name in\n${planText(df)}")
    }
    noVanilla.foreach { cls =>
      assert(!nodes.exists(n => cls.isInstance(n)), s"a vanilla ${cls.getSimpleName} remains in\n${planText(df)}")
    }
    rows
  }

  /** The executed plan and the fallback reasons, for failure messages. */
  protected def planText(df: DataFrame): String =
    df.queryExecution.executedPlan.treeString + "\nfallbacks: " + fallbackReasons(df).mkString("; ")

  /**
   * `query`'s rows with the plugin off (asserting no Rowmatch operator ran) and on, compared; returns the
   * plugin's rows and the DataFrame that made them.
   */
  private def checkAnswer(query: => DataFrame, ordered: Boolean, tolerance: Double): (Seq[Row], DataFrame) = {
    val expected = withConf("spark.rowmatch.enabled" -> "false") {
      val df = query
      val rows = df.collect().toSeq
      assert(!executedNodes(df).exists(_.nodeName.startsWith("Rowmatch")), "plugin disabled but a Rowmatch operator ran")
      rows
    }
    val (actual, df) = withConf("spark.rowmatch.enabled" -> "true") {
      val df = query
      (df.collect().toSeq, df)
    }
    RowComparison.assertSameRows(expected, actual, ordered, tolerance, planText(df))
    (actual, df)
  }
}

object RowComparison {
  /** Floating values last (a tolerance may apply to them), byte arrays by content, not identity. */
  private def sortKey(r: Row): String = {
    def render(v: Any): String = v match {
      case b: Array[Byte] => b.mkString("bytes[", ",", "]")
      case r: Row => r.toSeq.map(render).mkString("{", ",", "}")
      case s: scala.collection.Seq[_] => s.map(render).mkString("[", ",", "]")
      case other => String.valueOf(other)
    }
    r.toSeq.map {
      case _: Double | _: Float => "~"
      case other => render(other)
    }.mkString("|") + "#" + r.toSeq.map(render).mkString("|")
  }

  /**
   * The one row comparison of the integration suites. Unordered unless `ordered`; floating values equal when
   * `Double.compare` says so (NaN = NaN, -0.0 != 0.0), or within the relative `tolerance` when one is given;
   * with `bitExact`, as multisets of rows whose floating values must agree bit for bit (NaN payloads and
   * -0.0 included: a join copies values as they are), and the message lists what is missing and extra.
   */
  def assertSameRows(expected: Seq[Row], actual: Seq[Row], ordered: Boolean, tolerance: Double,
      context: String, bitExact: Boolean = false): Unit = {
    assert(expected.size == actual.size,
      s"row counts differ: vanilla ${expected.size}, rowmatch ${actual.size}\n$context")
    if (bitExact) {
      assert(!ordered && tolerance == 0.0, "bit-exact comparison is of unordered rows without tolerance")
      assertSameMultiset(expected, actual, context)
      return
    }
    val (e, a) = if (ordered) (expected, actual) else (expected.sortBy(sortKey), actual.sortBy(sortKey))
    e.zip(a).zipWithIndex.foreach { case ((er, ar), i) =>
      assert(er.length == ar.length, s"row $i widths differ: $er vs $ar")
      (0 until er.length).foreach { c =>
        if (!valueEquals(er.get(c), ar.get(c), tolerance)) {
          org.scalatest.Assertions.fail(s"row $i column $c differs: vanilla $er, rowmatch $ar\n$context")
        }
      }
    }
  }

  def valueEquals(x: Any, y: Any, tolerance: Double): Boolean = (x, y) match {
    case (null, null) => true
    case (null, _) | (_, null) => false
    case (a: Double, b: Double) => doubleEquals(a, b, tolerance)
    case (a: Float, b: Float) => doubleEquals(a.toDouble, b.toDouble, tolerance)
    case (a: Array[Byte], b: Array[Byte]) => java.util.Arrays.equals(a, b)
    case (a: Row, b: Row) => a.length == b.length &&
      (0 until a.length).forall(i => valueEquals(a.get(i), b.get(i), tolerance))
    case (a: scala.collection.Seq[_], b: scala.collection.Seq[_]) => a.length == b.length &&
      a.zip(b).forall { case (p, q) => valueEquals(p, q, tolerance) }
    case (a, b) => a == b
  }

  private def doubleEquals(a: Double, b: Double, tolerance: Double): Boolean =
    if (a.isNaN || b.isNaN) a.isNaN && b.isNaN
    else if (tolerance == 0.0) java.lang.Double.compare(a, b) == 0
    else a == b || math.abs(a - b) <= tolerance * math.max(math.abs(a), math.abs(b))

  private def assertSameMultiset(expected: Seq[Row], actual: Seq[Row], context: String): Unit = {
    def counts(rows: Seq[Row]): Map[String, Int] = rows.groupBy(bits).map { case (k, v) => k -> v.size }
    val e = counts(expected)
    val a = counts(actual)
    if (e != a) {
      val missing = e.filter { case (k, n) => a.getOrElse(k, 0) < n }.keys.take(5)
      val extra = a.filter { case (k, n) => e.getOrElse(k, 0) < n }.keys.take(5)
      org.scalatest.Assertions.fail(s"results differ; missing from rowmatch: ${missing.mkString(", ")}; " +
        s"extra in rowmatch: ${extra.mkString(", ")}\n$context")
    }
  }

  /** A row as text that tells every value apart, -0.0 from 0.0 and NaN payloads included. */
  private def bits(r: Row): String = r.toSeq.map {
    case null => "null"
    case d: Double => "D" + java.lang.Double.doubleToRawLongBits(d)
    case f: Float => "F" + java.lang.Float.floatToRawIntBits(f)
    case b: Array[Byte] => "B" + b.mkString(",")
    case other => other.getClass.getSimpleName + ":" + other
  }.mkString("(", "|", ")")
}
