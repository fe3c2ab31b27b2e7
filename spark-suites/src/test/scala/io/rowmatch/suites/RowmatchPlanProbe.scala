package io.rowmatch.suites

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}

/**
 * A test-only session extension that watches every physical plan after the columnar rules ran (the
 * whole-query plans and, under AQE, each query stage's plan), and counts those holding at least one
 * Rowmatch operator (a node whose name starts with "Rowmatch", subqueries included). The suites list it
 * before Rowmatch's entry in `spark.sql.extensions`: Spark applies the columnar rules' post-transition
 * halves in reverse order, so the probe sees the plan after Rowmatch finished with it.
 *
 * It plans nothing and changes nothing. It also catches the plans Spark's `SparkPlanTest` suites
 * (InnerJoinSuite, OuterJoinSuite, ExistenceJoinSuite) build by hand and prepare without a Dataset, which
 * a `QueryExecutionListener` never hears of.
 */
class RowmatchPlanProbe extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit =
    extensions.injectColumnar(_ => RowmatchPlanProbe.Probe)
}

object RowmatchPlanProbe {
  val ClassName: String = classOf[RowmatchPlanProbe].getName

  private val plansWithRowmatch = new AtomicLong()
  private val plansSeen = new AtomicLong()
  private val operators = new ConcurrentHashMap[String, AtomicLong]()

  private object Probe extends ColumnarRule {
    override def postColumnarTransitions: Rule[SparkPlan] = new Rule[SparkPlan] {
      override def apply(plan: SparkPlan): SparkPlan = {
        record(plan)
        plan
      }
    }
  }

  private def record(plan: SparkPlan): Unit = {
    val names = plan.collectWithSubqueries {
      case p if p.nodeName.startsWith("Rowmatch") => p.nodeName
    }
    plansSeen.incrementAndGet()
    if (names.nonEmpty) {
      plansWithRowmatch.incrementAndGet()
      names.foreach(n => operators.computeIfAbsent(n, _ => new AtomicLong()).incrementAndGet())
    }
  }

  /** Counts since the last reset: one suite at a time (the suites of this module run one after another). */
  final case class Snapshot(plans: Long, plansWithRowmatch: Long, operators: Map[String, Long])

  def reset(): Unit = {
    plansWithRowmatch.set(0)
    plansSeen.set(0)
    operators.clear()
  }

  def snapshot(): Snapshot = Snapshot(plansSeen.get(), plansWithRowmatch.get(),
    operators.asScala.map { case (k, v) => k -> v.get() }.toMap)
}
