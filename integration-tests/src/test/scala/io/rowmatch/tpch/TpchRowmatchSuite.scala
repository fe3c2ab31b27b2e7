package io.rowmatch.tpch

import java.nio.file.{Files, Path}

import io.rowmatch.bench.tpch.{Engine, QueryRun, TpchQuery}

/**
 * Plugin ON (spark.sql.extensions=io.rowmatch.spark.RowmatchExtensions): every answer must equal the
 * reference, and the plan must hold Rowmatch operators.
 *
 * Until the plugin exists on this branch, its tests are CANCELED (reported as canceled, never as
 * passed). The switch is automatic: as soon as the plugin's source file (RowmatchExtensions.java or
 * .scala in spark-plugin) is in the tree, the class must load, or every test FAILS.
 *
 * Operator counts: where `rowmatch-operators.tsv` (test resources, same format as the file this suite
 * writes to target/tpch-rowmatch-operators.tsv) pins a count for a strategy and query, it must match
 * exactly, or fall in a pinned range "a-b" of the counts AQE's varying order of stages gives (a key's
 * isnotnull filter is dropped only where the join reads it in the same stage); otherwise at least one
 * Rowmatch operator is required (every TPC-H query joins or aggregates).
 * A plan without any Rowmatch operator must carry the plugin's fallback reasons (tags named rowmatch.*).
 */
class TpchRowmatchSuite extends TpchSuiteBase(Engine.ROWMATCH) {
  private val ExtensionClass = "io.rowmatch.spark.RowmatchExtensions"

  private def pluginSourcePresent: Boolean = {
    val sources = Seq("java", "scala").map(ext =>
      Path.of("..", "spark-plugin", "src", "main", ext, "io", "rowmatch", "spark", s"RowmatchExtensions.$ext"))
    sources.exists(Files.isRegularFile(_))
  }

  private def pluginLoadable: Boolean =
    try { Class.forName(ExtensionClass); true } catch { case _: ClassNotFoundException => false }

  override protected def readiness(): Either[String, Unit] =
    if (pluginLoadable) Right(())
    else if (pluginSourcePresent) Left(s"the plugin's source is in spark-plugin but $ExtensionClass does not load")
    else Left(s"$ExtensionClass is not on this branch yet (issue 5); TPC-H with the plugin ON cannot run")

  override protected def handleNotReady(message: String): Unit =
    if (pluginSourcePresent) fail(message) else cancel(message)

  override protected def checkOperators(strategy: JoinStrategy, query: TpchQuery, run: QueryRun): Unit = {
    val count = run.inspection().operatorCount()
    val detail = s"${strategy.name} ${query.name()}: ${run.inspection().operatorSummary()}; fallback reasons: " +
      run.inspection().fallbackReasons()
    OperatorPins.all.get((strategy.name, query.number())) match {
      case Some(expected) => assert(expected.contains(count),
        s"expected ${OperatorPins.describe(expected)} Rowmatch operators (pinned in rowmatch-operators.tsv), got $count ($detail). If the" +
          " plugin changed on purpose, copy target/tpch-rowmatch-operators.tsv over" +
          " src/test/resources/io/rowmatch/tpch/rowmatch-operators.tsv")
      case None => assert(count >= 1, s"no Rowmatch operator ran and no count is pinned ($detail)")
    }
    val rowsIntoArrow = RowsIntoArrow.find(run.plan())
    assert(rowsIntoArrow.isEmpty, s"${strategy.name} ${query.name()}: rows are made and converted back to Arrow " +
      s"below a Rowmatch operator (RowmatchToArrow over ${rowsIntoArrow.mkString(", ")}) ($detail)\n${run.plan()}")
    if (count == 0) {
      assert(!run.inspection().fallbackReasons().isEmpty,
        s"the plugin left ${query.name()} entirely to Spark without recording why ($detail)")
    }
  }
}

/**
 * The inputs of RowmatchToArrow in a final plan's text that are a row-based Filter, Project or ColumnarToRow (a
 * codegen stage): rows were made from columnar batches only to be converted back to Arrow. (Rows from a vanilla
 * shuffle, which AQE may keep when a stage was planned before its consumer, are not this.)
 */
object RowsIntoArrow {
  def find(plan: String): Seq[String] = {
    val lines = plan.split("\n").toSeq
    val fin = lines.indexWhere(_.contains("== Final Plan =="))
    val end = lines.indexWhere(_.contains("== Initial Plan =="))
    val part = if (fin >= 0 && end > fin) lines.slice(fin, end) else lines
    def name(i: Int): String =
      if (i >= part.size) ""
      else part(i).replaceAll("^[\\s:+|-]*", "").replaceAll("^\\*\\(\\d+\\) ", "").takeWhile(_ != ' ')
    // A codegen Filter/Project chain over a scan's batches (or the scan's batches made rows) under a
    // RowmatchToArrow; the scan's own batches go into Arrow without rows.
    // Over another vanilla operator (a join the placement policy kept, say) the rows are that operator's.
    part.indices.filter(i => part(i).contains("RowmatchToArrow") && i + 1 < part.size).flatMap { i =>
      var j = i + 1
      while (name(j) == "Filter" || name(j) == "Project") j += 1
      val overScan = name(j) == "ColumnarToRow" || (j > i + 1 && (name(j).startsWith("Scan") || name(j).startsWith("FileScan")))
      if (overScan) Some(name(i + 1)) else None
    }
  }
}
