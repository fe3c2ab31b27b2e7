package io.rowmatch.bench.tpch;

import java.util.List;

/**
 * One benchmark query of a {@link Workload} (a TPC-H or TPC-DS query): its name ("q5", "q14a"), its
 * statements in Spark's dialect (set-up statements first; the last one gives the answer).
 */
public interface BenchQuery {
  String name();

  List<String> statements();

  /** The statement whose rows are the answer. */
  default String answerStatement() {
    List<String> statements = statements();
    return statements.get(statements.size() - 1);
  }
}
