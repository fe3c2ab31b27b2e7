package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;

/**
 * A planned expression: evaluates a whole batch at a time into a {@link Vec}. Kernels form a tree (one node per
 * Spark expression); each node switches on its kind and type once per batch and then runs a tight loop, so no
 * call in a per-value loop is virtual.
 *
 * <p>{@code active} is the set of rows Spark itself would evaluate this expression on (as bitmap words; null
 * for every row): the right side of AND only where the left is not false, a CASE branch only where it is
 * chosen, a filter's later conjuncts only where the earlier ones held. Values are computed for every row
 * (cheaper than branching), but an error Spark raises (ANSI overflow, division by zero) is raised only for an
 * active row, so we fail exactly when Spark would.
 */
abstract class Kernel {
  /** The Spark expression this kernel evaluates (its type, its error context, and the rare-row fallback). */
  final Expression expr;
  final DataType type;

  Kernel(Expression expr) {
    this.expr = expr;
    this.type = expr.dataType();
  }

  abstract Vec eval(EvalBatch in, long[] active);

  /** Whether row r is in {@code active} (null: every row). */
  static boolean isActive(long[] active, int r) {
    return active == null || (active[r >>> 6] & (1L << r)) != 0;
  }
}
