package io.rowmatch.suites

import org.apache.spark.sql.{DataFrameAggregateSuite, DataFrameJoinSuite, DataFrameSetOperationsSuite,
  DataFrameWindowFunctionsSuite, JoinSuite, SQLQueryTestSuite, SubquerySuite}
import org.apache.spark.sql.execution.SQLWindowFunctionSuite
import org.apache.spark.sql.execution.joins.{ExistenceJoinSuite, InnerJoinSuite, OuterJoinSuite}

// Spark's suites, run with the Rowmatch plugin on. Each subclass only adds RowmatchSuiteChecks (exclusions,
// the plugin-ran floor); the tests are Spark's own, from its published test jars. The floors are about half
// the prepared plans with a Rowmatch operator a full run produced when they were set.

class RowmatchJoinSuite extends JoinSuite with RowmatchSuiteChecks {
  override protected def minRowmatchPlans: Long = 120
}

class RowmatchDataFrameJoinSuite extends DataFrameJoinSuite with RowmatchSuiteChecks {
  override protected def minRowmatchPlans: Long = 90
}

class RowmatchDataFrameAggregateSuite extends DataFrameAggregateSuite with RowmatchSuiteChecks {
  override protected def minRowmatchPlans: Long = 800
}

class RowmatchDataFrameSetOperationsSuite extends DataFrameSetOperationsSuite with RowmatchSuiteChecks {
  override protected def minRowmatchPlans: Long = 170
}

class RowmatchDataFrameWindowFunctionsSuite extends DataFrameWindowFunctionsSuite with RowmatchSuiteChecks {
  // 332 of 1287 (204 with a RowmatchWindowSort, 130 with a RowmatchWindowGroupLimit) when windows' sorts became Rowmatch's
  override protected def minRowmatchPlans: Long = 165
}

class RowmatchSQLWindowFunctionSuite extends SQLWindowFunctionSuite with RowmatchSuiteChecks {
  // 48 of 162 (24 with a RowmatchWindowSort)
  override protected def minRowmatchPlans: Long = 24
}

class RowmatchSubquerySuite extends SubquerySuite with RowmatchSuiteChecks {
  override protected def minRowmatchPlans: Long = 350
}

class RowmatchInnerJoinSuite extends InnerJoinSuite with RowmatchSuiteChecks {
  override protected def minRowmatchPlans: Long = 30
}

class RowmatchOuterJoinSuite extends OuterJoinSuite with RowmatchSuiteChecks {
  override protected def minRowmatchPlans: Long = 30
}

class RowmatchExistenceJoinSuite extends ExistenceJoinSuite with RowmatchSuiteChecks {
  // 96 of 162 once its ExistenceJoins ran as RowmatchHashJoin (30 before)
  override protected def minRowmatchPlans: Long = 48
}

/**
 * SQLQueryTestSuite restricted to its golden files about joins, grouping and set operations: those whose
 * path (under sql-tests/inputs) names one of [[RowmatchSQLQueryTestSuite.Topics]].
 */
class RowmatchSQLQueryTestSuite extends SQLQueryTestSuite with RowmatchSuiteChecks {
  override protected def minRowmatchPlans: Long = 4500

  override def createScalaTestCase(testCase: TestCase): Unit =
    if (RowmatchSQLQueryTestSuite.selected(testCase.name)) super.createScalaTestCase(testCase)
}

object RowmatchSQLQueryTestSuite {
  val Topics: Seq[String] =
    Seq("join", "group-by", "aggregate", "distinct", "except", "intersect", "having", "union", "pivot", "count", "window")

  def selected(testCaseName: String): Boolean = {
    val n = testCaseName.toLowerCase(java.util.Locale.ROOT)
    Topics.exists(n.contains)
  }
}
