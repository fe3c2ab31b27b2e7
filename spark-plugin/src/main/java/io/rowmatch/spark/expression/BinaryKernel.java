package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * A kernel of two children whose result is null where either input is (Spark's null-intolerant binary
 * expressions): both children are evaluated over the same active rows and the output comes allocated, valid
 * where both inputs are; {@link #compute} fills the values and may clear more rows (a zero divisor, an overflow).
 */
abstract class BinaryKernel extends Kernel {
  final Kernel left;
  final Kernel right;

  BinaryKernel(Expression e, Kernel left, Kernel right) {
    super(e);
    this.left = left;
    this.right = right;
  }

  @Override
  final Vec eval(EvalBatch in, long[] active) {
    Vec a = left.eval(in, active);
    Vec b = right.eval(in, active);
    Vec out = in.allocate(type, in.rows);
    out.valid = Vec.andValid(a.valid, b.valid);
    compute(a, b, out, in.rows, active);
    return out;
  }

  /** Fills {@code out}'s n values from the inputs' (rows Spark does not evaluate need no value). */
  abstract void compute(Vec a, Vec b, Vec out, int n, long[] active);
}
