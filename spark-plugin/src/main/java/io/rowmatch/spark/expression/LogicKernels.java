package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Not;
import org.apache.spark.sql.catalyst.expressions.Or;

/** AND, OR, NOT with SQL's three-valued logic, IS [NOT] NULL: a word (64 rows) at a time. */
final class LogicKernels {
  private LogicKernels() {}

  static Kernel and(Expression e, ExpressionPlanning p) {
    And a = (And) e;
    return new AndOr(e, true, p.child(a.left()), p.child(a.right()));
  }

  static Kernel or(Expression e, ExpressionPlanning p) {
    Or o = (Or) e;
    return new AndOr(e, false, p.child(o.left()), p.child(o.right()));
  }

  static Kernel not(Expression e, ExpressionPlanning p) {
    return new NotKernel(e, p.child(((Not) e).child()));
  }

  static Kernel isNull(Expression e, ExpressionPlanning p) {
    return new NullTest(e, p.child(((IsNull) e).child()), true);
  }

  static Kernel isNotNull(Expression e, ExpressionPlanning p) {
    return new NullTest(e, p.child(((IsNotNull) e).child()), false);
  }

  /** Rows where a boolean vector is definitely true (valid and set). */
  static long[] trues(Vec v) {
    long[] t = v.bits.clone();
    if (v.valid != null) {
      for (int w = 0; w < t.length; w++) {
        t[w] &= v.valid[w];
      }
    }
    CompareKernels.clearTail(t, v.rows);
    return t;
  }

  /** Rows where a boolean vector is definitely false (valid and clear). */
  static long[] falses(Vec v) {
    long[] f = new long[v.bits.length];
    for (int w = 0; w < f.length; w++) {
      f[w] = ~v.bits[w] & (v.valid == null ? -1L : v.valid[w]);
    }
    CompareKernels.clearTail(f, v.rows);
    return f;
  }

  /** active AND NOT rows (null active: every row). */
  static long[] without(long[] active, long[] rows, int n) {
    long[] out = active == null ? Vec.allValid(n) : active.clone();
    for (int w = 0; w < out.length; w++) {
      out[w] &= ~rows[w];
    }
    return out;
  }

  /** AND (false wins, then null) or OR (true wins, then null); the right side is active where the left did not decide. */
  static final class AndOr extends Kernel {
    final boolean and;
    final Kernel left;
    final Kernel right;

    AndOr(Expression e, boolean and, Kernel left, Kernel right) {
      super(e);
      this.and = and;
      this.left = left;
      this.right = right;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      Vec l = left.eval(in, active);
      long[] lt = trues(l);
      long[] lf = falses(l);
      Vec r = Selective.eval(right, in, without(active, and ? lf : lt, n));
      long[] rt = trues(r);
      long[] rf = falses(r);
      Vec out = new Vec(type, n);
      long[] bits = new long[lt.length];
      long[] valid = new long[lt.length];
      for (int w = 0; w < bits.length; w++) {
        long t;
        long f;
        if (and) {
          t = lt[w] & rt[w];
          f = lf[w] | rf[w];
        } else {
          t = lt[w] | rt[w];
          f = lf[w] & rf[w];
        }
        bits[w] = t;
        valid[w] = t | f;
      }
      out.bits = bits;
      out.valid = valid;
      return out;
    }
  }

  static final class NotKernel extends Kernel {
    final Kernel child;

    NotKernel(Expression e, Kernel child) {
      super(e);
      this.child = child;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      Vec c = child.eval(in, active);
      Vec out = new Vec(type, in.rows);
      long[] bits = new long[c.bits.length];
      for (int w = 0; w < bits.length; w++) {
        bits[w] = ~c.bits[w];
      }
      CompareKernels.clearTail(bits, in.rows);
      out.bits = bits;
      out.valid = c.valid;
      return out;
    }
  }

  static final class NullTest extends Kernel {
    final Kernel child;
    final boolean isNull;

    NullTest(Expression e, Kernel child, boolean isNull) {
      super(e);
      this.child = child;
      this.isNull = isNull;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      // a column's nulls are its validity: no need to read its values
      long[] childValid = child instanceof LeafKernels.ColumnKernel col ? in.validity(col.ordinal)
          : child.eval(in, active).valid;
      Vec out = new Vec(type, n);
      long[] valid = childValid == null ? Vec.allValid(n) : childValid;
      long[] bits = new long[Vec.words(n)];
      for (int w = 0; w < bits.length; w++) {
        bits[w] = isNull ? ~valid[w] : valid[w];
      }
      CompareKernels.clearTail(bits, n);
      out.bits = bits;
      return out;
    }
  }
}
