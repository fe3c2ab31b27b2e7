package io.rowmatch.spark.expression;

import java.util.Arrays;

import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/** Literals of every atomic type, and column references (bound or by attribute). */
final class LeafKernels {
  private LeafKernels() {}

  static Kernel literal(Expression e, ExpressionPlanning p) {
    Literal l = (Literal) e;
    p.checkType(l.dataType(), e);
    return new LiteralKernel(l);
  }

  /**
   * A scalar subquery's value: Spark runs the subquery before this plan node executes (SparkPlan.prepare waits for
   * every subquery in the node's expressions) and ships its result with the expression, so it is a literal here.
   */
  static Kernel scalarSubquery(Expression e, ExpressionPlanning p) {
    p.checkType(e.dataType(), e);
    return new LiteralKernel(e, null) {
      @Override
      Object value() {
        return expr.eval(null);
      }
    };
  }

  static Kernel bound(Expression e, ExpressionPlanning p) {
    BoundReference b = (BoundReference) e;
    p.checkType(b.dataType(), e);
    return new ColumnKernel(e, b.ordinal());
  }

  static Kernel attribute(Expression e, ExpressionPlanning p) {
    AttributeReference a = (AttributeReference) e;
    p.checkType(a.dataType(), e);
    return new ColumnKernel(e, p.ordinal(a));
  }

  /** A literal, broadcast to the batch's rows once per batch size (kernels never modify their inputs). */
  static class LiteralKernel extends Kernel {
    private final Object literal;
    private Vec cached;

    LiteralKernel(Literal l) {
      this(l, l.value());
    }

    LiteralKernel(Expression e, Object value) {
      super(e);
      this.literal = value;
    }

    Object value() {
      return literal;
    }

    private Vec one;

    /** The value as a one-row vector, for kernels that compare against a constant instead of a broadcast. */
    Vec constant() {
      if (one == null) {
        one = broadcast(1);
      }
      return one;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      if (cached != null && cached.rows == n) {
        return cached;
      }
      Object value = value();
      int kind = Vec.kindOf(type);
      if (value == null || kind == Vec.BOOL) {
        cached = broadcast(n); // validity or boolean words: exactly n rows' worth
        return cached;
      }
      // Values: one broadcast to the largest batch seen, its first n rows for a smaller one (a filter's
      // batches vary in size, and a new broadcast per batch was a tenth of TPC-H q1's projection).
      if (widest == null || widest.rows < n) {
        widest = broadcast(Math.max(n, widest == null ? 0 : widest.rows * 2));
      }
      cached = widest.rows == n ? widest : widest.firstRows(n);
      return cached;
    }

    private Vec widest;

    private Vec broadcast(int n) {
      Object value = value();
      Vec v = Vec.allocate(type, n);
      if (value == null) {
        v.valid = new long[Vec.words(n)];
      } else {
        switch (v.kind) {
          case Vec.BOOL -> {
            if ((Boolean) value) {
              long[] all = Vec.allValid(n);
              System.arraycopy(all, 0, v.bits, 0, all.length);
            }
          }
          case Vec.LONG -> Arrays.fill(v.longs, ((Number) value).longValue());
          case Vec.DOUBLE -> Arrays.fill(v.doubles, ((Number) value).doubleValue());
          case Vec.DECIMAL -> {
            java.math.BigInteger u = ((Decimal) value).toJavaBigDecimal().unscaledValue();
            Arrays.fill(v.longs, u.longValue());
            if (v.his != null) {
              Arrays.fill(v.his, u.shiftRight(64).longValue());
            }
          }
          case Vec.BYTES -> {
            v.data = value instanceof UTF8String s ? s.getBytes() : (byte[]) value;
            Arrays.fill(v.lens, v.data.length);
          }
          default -> throw new IllegalStateException("literal of " + type.simpleString());
        }
      }
      return v;
    }
  }

  /** An input column, read from Arrow once per batch. */
  static final class ColumnKernel extends Kernel {
    final int ordinal;

    ColumnKernel(Expression e, int ordinal) {
      super(e);
      this.ordinal = ordinal;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      return in.column(ordinal);
    }
  }
}
