package io.rowmatch.spark

import io.rowmatch.spark.testing.TestFaults

/**
 * The test-only fault settings take effect only in an application started with
 * spark.rowmatch.test.faultsEnabled=true (TaskFaultSuite starts one): a session of an ordinary application that
 * sets them (the switch included: a session cannot turn it on) runs its queries untouched.
 */
class TestFaultsGateSuite extends RowmatchQueryTest {
  test("fault settings set by a session without the startup switch do nothing") {
    assert(!spark.sparkContext.getConf.getBoolean(TestFaults.ENABLED, false))
    withConf(TestFaults.FAIL_AFTER_BATCHES -> "0", TestFaults.ENABLED -> "true") { // local[2]: one attempt per task
      val rows = checkAnswerAndOperator(
        spark.range(10000).selectExpr("id % 10 as k", "id as v").groupBy("k").sum("v"), minOperators = 2)
      assert(rows.size == 10)
    }
  }
}
