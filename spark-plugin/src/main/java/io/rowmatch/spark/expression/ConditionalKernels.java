package io.rowmatch.spark.expression;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.spark.sql.catalyst.expressions.CaseWhen;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.If;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * CASE WHEN, IF and COALESCE: each condition is evaluated where no earlier one held, each value only where it is
 * chosen (so an error Spark would not meet is not raised), and the output blends the chosen values row by row.
 */
final class ConditionalKernels {
  private ConditionalKernels() {}

  static Kernel caseWhen(Expression e, ExpressionPlanning p) {
    CaseWhen c = (CaseWhen) e;
    p.checkType(e.dataType(), e);
    List<Kernel> conditions = new ArrayList<>();
    List<Kernel> values = new ArrayList<>();
    for (Tuple2<Expression, Expression> b : CollectionConverters.asJava(c.branches())) {
      conditions.add(p.child(b._1()));
      values.add(typed(p, b._2(), e));
    }
    if (conditions.size() == 1 && NullUnless.fits(e, c.elseValue().isDefined() ? c.elseValue().get() : null)) {
      return new NullUnless(e, conditions.get(0), values.get(0));
    }
    Kernel otherwise = c.elseValue().isDefined() ? typed(p, c.elseValue().get(), e) : null;
    return new Choose(e, conditions.toArray(new Kernel[0]), values.toArray(new Kernel[0]), otherwise);
  }

  static Kernel ifThen(Expression e, ExpressionPlanning p) {
    If i = (If) e;
    p.checkType(e.dataType(), e);
    if (NullUnless.fits(e, i.falseValue())) {
      return new NullUnless(e, p.child(i.predicate()), typed(p, i.trueValue(), e));
    }
    return new Choose(e, new Kernel[] {p.child(i.predicate())}, new Kernel[] {typed(p, i.trueValue(), e)},
        typed(p, i.falseValue(), e));
  }

  static Kernel coalesce(Expression e, ExpressionPlanning p) {
    Coalesce c = (Coalesce) e;
    p.checkType(e.dataType(), e);
    List<Kernel> children = new ArrayList<>();
    for (Expression child : CollectionConverters.asJava(c.children())) {
      children.add(typed(p, child, e));
    }
    return new FirstValid(e, children.toArray(new Kernel[0]));
  }

  private static Kernel typed(ExpressionPlanning p, Expression child, Expression e) {
    if (!child.dataType().sameType(e.dataType())) {
      throw p.refuse("a branch of type " + child.dataType().simpleString() + " in " + e.sql());
    }
    return p.child(child);
  }

  static long[] and(long[] active, long[] rows) {
    if (active == null) {
      return rows;
    }
    long[] out = rows.clone();
    for (int w = 0; w < out.length; w++) {
      out[w] &= active[w];
    }
    return out;
  }

  static final class Choose extends Kernel {
    final Kernel[] conditions;
    final Kernel[] values;
    final Kernel otherwise;

    Choose(Expression e, Kernel[] conditions, Kernel[] values, Kernel otherwise) {
      super(e);
      this.conditions = conditions;
      this.values = values;
      this.otherwise = otherwise;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      int[] pick = new int[n];
      Arrays.fill(pick, -1);
      long[] decided = new long[Vec.words(n)];
      Vec[] sources = new Vec[values.length + 1];
      for (int k = 0; k < conditions.length; k++) {
        long[] open = LogicKernels.without(active, decided, n);
        Vec c = conditions[k].eval(in, open);
        long[] chosen = LogicKernels.trues(c);
        for (int w = 0; w < chosen.length; w++) {
          chosen[w] &= ~decided[w];
          decided[w] |= chosen[w];
        }
        sources[k] = values[k].eval(in, and(active, chosen));
        mark(pick, chosen, k);
      }
      if (otherwise != null) {
        long[] rest = LogicKernels.without(null, decided, n);
        sources[values.length] = otherwise.eval(in, and(active, rest));
        mark(pick, rest, values.length);
      }
      return blend(in, type, n, sources, pick);
    }
  }

  /**
   * CASE WHEN c THEN x END, or IF(c, x, NULL), of a fixed-width type: x (evaluated only where c is true) with its
   * validity masked by c, sharing x's values instead of blending them into a new vector (TPC-DS q59 sums seven of
   * these per row, one per weekday: the blend and its per-row pick array were most of their cost). Strings keep
   * the blend, so a null row never carries another row's bytes.
   */
  static final class NullUnless extends Kernel {
    final Kernel condition;
    final Kernel value;

    NullUnless(Expression e, Kernel condition, Kernel value) {
      super(e);
      this.condition = condition;
      this.value = value;
    }

    /** Whether e, with this otherwise (null: none), is a fixed-width value under one condition, null otherwise. */
    static boolean fits(Expression e, Expression otherwise) {
      int kind = Vec.kindOf(e.dataType());
      boolean fixed = kind == Vec.BOOL || kind == Vec.LONG || kind == Vec.DOUBLE || kind == Vec.DECIMAL;
      return fixed && (otherwise == null
          || (otherwise instanceof org.apache.spark.sql.catalyst.expressions.Literal l && l.value() == null));
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      long[] chosen = LogicKernels.trues(condition.eval(in, active));
      Vec x = value.eval(in, and(active, chosen));
      Vec out = new Vec(type, n);
      out.bits = x.bits;
      out.longs = x.longs;
      out.his = x.his;
      out.doubles = x.doubles;
      long[] valid = chosen; // trues() made a new array: ours to mask
      if (x.valid != null) {
        for (int w = 0; w < valid.length; w++) {
          valid[w] &= x.valid[w];
        }
      }
      out.valid = valid;
      return out;
    }
  }

  static final class FirstValid extends Kernel {
    final Kernel[] children;

    FirstValid(Expression e, Kernel[] children) {
      super(e);
      this.children = children;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      int[] pick = new int[n];
      Arrays.fill(pick, -1);
      long[] decided = new long[Vec.words(n)];
      Vec[] sources = new Vec[children.length];
      for (int k = 0; k < children.length; k++) {
        Vec v = children[k].eval(in, LogicKernels.without(active, decided, n));
        sources[k] = v;
        long[] valid = v.valid == null ? Vec.allValid(n) : v.valid;
        long[] chosen = new long[decided.length];
        for (int w = 0; w < chosen.length; w++) {
          chosen[w] = valid[w] & ~decided[w];
          decided[w] |= chosen[w];
        }
        mark(pick, chosen, k);
      }
      return blend(in, type, n, sources, pick);
    }
  }

  private static void mark(int[] pick, long[] rows, int k) {
    for (int w = 0; w < rows.length; w++) {
      for (long m = rows[w]; m != 0; m &= m - 1) {
        int r = (w << 6) + Long.numberOfTrailingZeros(m);
        if (r < pick.length) {
          pick[r] = k;
        }
      }
    }
  }

  /** Row r from sources[pick[r]] (null where pick[r] is -1 or the source is null there). */
  static Vec blend(EvalBatch in, org.apache.spark.sql.types.DataType type, int n, Vec[] sources, int[] pick) {
    Vec out = in.allocate(type, n);
    long[] valid = new long[Vec.words(n)];
    for (int r = 0; r < n; r++) {
      int k = pick[r];
      if (k >= 0 && sources[k].isValid(r)) {
        valid[r >>> 6] |= 1L << r;
      }
    }
    out.valid = valid;
    switch (out.kind) {
      case Vec.BOOL -> {
        for (int r = 0; r < n; r++) {
          int k = pick[r];
          if (k >= 0) {
            out.bits[r >>> 6] |= sources[k].bits[r >>> 6] & (1L << r);
          }
        }
      }
      case Vec.LONG -> {
        for (int r = 0; r < n; r++) {
          int k = pick[r];
          if (k >= 0) {
            out.longs[r] = sources[k].longs[r];
          }
        }
      }
      case Vec.DOUBLE -> {
        for (int r = 0; r < n; r++) {
          int k = pick[r];
          if (k >= 0) {
            out.doubles[r] = sources[k].doubles[r];
          }
        }
      }
      case Vec.DECIMAL -> {
        for (int r = 0; r < n; r++) {
          int k = pick[r];
          if (k >= 0) {
            out.longs[r] = sources[k].longs[r];
            if (out.his != null) {
              out.his[r] = sources[k].his[r];
            }
          }
        }
      }
      case Vec.BYTES -> {
        long total = 0;
        for (int r = 0; r < n; r++) {
          if ((valid[r >>> 6] & (1L << r)) != 0) {
            total += sources[pick[r]].lens[r];
          }
        }
        byte[] data = new byte[Math.toIntExact(total)];
        int at = 0;
        for (int r = 0; r < n; r++) {
          out.starts[r] = at;
          if ((valid[r >>> 6] & (1L << r)) != 0) {
            Vec s = sources[pick[r]];
            System.arraycopy(s.data, s.starts[r], data, at, s.lens[r]);
            out.lens[r] = s.lens[r];
            at += s.lens[r];
          }
        }
        out.data = data;
      }
      default -> { }
    }
    return out;
  }
}
