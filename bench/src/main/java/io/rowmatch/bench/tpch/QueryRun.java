package io.rowmatch.bench.tpch;

import java.util.List;
import java.util.Map;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * One execution of a benchmark query on a session: its wall time (all statements, answer collected to the
 * driver), its answer as text, and what ran: the engine's operators and fallback reasons ({@code inspection}),
 * every operator by name ({@code operators}, e.g. the join strategy) and the final plan's text.
 */
public record QueryRun(BenchQuery query, double millis, ResultTable answer, PlanInspector.Inspection inspection,
    Map<String, Integer> operators, String plan) {

  public static QueryRun execute(SparkSession spark, BenchQuery query, String operatorPrefix) {
    long start = System.nanoTime();
    List<String> statements = query.statements();
    for (String setup : statements.subList(0, statements.size() - 1)) {
      spark.sql(setup).collectAsList();
    }
    Dataset<Row> frame = spark.sql(query.answerStatement());
    List<Row> rows = frame.collectAsList();
    double millis = (System.nanoTime() - start) / 1e6;
    SparkPlan executed = frame.queryExecution().executedPlan();
    return new QueryRun(query, millis, SparkResults.of(frame, rows, query.name()),
        PlanInspector.inspect(executed, operatorPrefix), PlanInspector.allOperators(executed), executed.toString());
  }
}
