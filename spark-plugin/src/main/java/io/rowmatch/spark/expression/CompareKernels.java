package io.rowmatch.spark.expression;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.catalyst.expressions.BinaryComparison;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.InSet;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.StringType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * = &lt;=&gt; &lt; &lt;= &gt; &gt;= and IN / InSet, on every kind, with Spark's ordering: NaN equals NaN and sorts
 * above every number, -0.0 equals 0.0 (SQLOrderingUtil), strings and binaries by unsigned bytes, false before
 * true, decimals of one type by unscaled value.
 */
final class CompareKernels {
  private CompareKernels() {}

  static final int EQ = 0;
  static final int LT = 1;
  static final int LE = 2;
  static final int GT = 3;
  static final int GE = 4;
  static final int EQ_NULL_SAFE = 5;

  static Kernel plan(Expression e, ExpressionPlanning p) {
    BinaryComparison c = (BinaryComparison) e;
    DataType l = p.checkType(c.left().dataType(), e);
    if (!l.sameType(c.right().dataType())) {
      throw p.refuse("comparison of " + l.simpleString() + " with " + c.right().dataType().simpleString() + ": "
          + e.sql());
    }
    if (l instanceof StringType s && !s.supportsBinaryOrdering()) {
      throw p.refuse("collation " + s.collationName() + " does not order bytes: " + e.sql());
    }
    int op;
    if (e instanceof EqualTo) {
      op = EQ;
    } else if (e instanceof EqualNullSafe) {
      op = EQ_NULL_SAFE;
    } else if (e instanceof LessThan) {
      op = LT;
    } else if (e instanceof LessThanOrEqual) {
      op = LE;
    } else if (e instanceof GreaterThan) {
      op = GT;
    } else if (e instanceof GreaterThanOrEqual) {
      op = GE;
    } else {
      throw p.refuse("comparison " + e.prettyName() + " is not evaluated columnar: " + e.sql());
    }
    return new Compare(e, op, p.child(c.left()), p.child(c.right()));
  }

  /** Spark's SQL ordering of doubles: equal numbers (-0.0 and 0.0) are equal, NaN is above everything. */
  static int compareDoubles(double a, double b) {
    return a == b ? 0 : Double.compare(a, b);
  }

  /**
   * Whether a[as..as+len) equals b[bs..bs+len): a plain loop for short strings (Arrays.equals' setup costs more
   * than comparing a few bytes), Arrays.equals for long ones.
   */
  static boolean bytesEqual(byte[] a, int as, byte[] b, int bs, int len) {
    if (len >= 16) {
      return java.util.Arrays.equals(a, as, as + len, b, bs, bs + len);
    }
    for (int i = 0; i < len; i++) {
      if (a[as + i] != b[bs + i]) {
        return false;
      }
    }
    return true;
  }

  static int compareBytes(byte[] a, int as, int al, byte[] b, int bs, int bl) {
    return java.util.Arrays.compareUnsigned(a, as, as + al, b, bs, bs + bl);
  }

  static boolean test(int op, int c) {
    switch (op) {
      case EQ:
      case EQ_NULL_SAFE:
        return c == 0;
      case LT:
        return c < 0;
      case LE:
        return c <= 0;
      case GT:
        return c > 0;
      default:
        return c >= 0;
    }
  }

  /** Row i of a against row j of b, by kind. */
  static int compareAt(Vec a, int i, Vec b, int j) {
    switch (a.kind) {
      case Vec.BOOL:
        return Boolean.compare((a.bits[i >>> 6] & (1L << i)) != 0, (b.bits[j >>> 6] & (1L << j)) != 0);
      case Vec.LONG:
        return Long.compare(a.longs[i], b.longs[j]);
      case Vec.DOUBLE:
        return compareDoubles(a.doubles[i], b.doubles[j]);
      case Vec.DECIMAL:
        if (a.his == null) {
          return Long.compare(a.longs[i], b.longs[j]);
        }
        return Int128.compare(a.his[i], a.longs[i], b.his[j], b.longs[j]);
      default:
        return compareBytes(a.data, a.starts[i], a.lens[i], b.data, b.starts[j], b.lens[j]);
    }
  }

  static final class Compare extends Kernel {
    final int op;
    final Kernel left;
    final Kernel right;

    /** The literal of a string equality with a literal, prepared once. */
    private ShortStrings shortStrings;

    Compare(Expression e, int op, Kernel left, Kernel right) {
      super(e);
      this.op = op;
      this.left = left;
      this.right = right;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      if (op != EQ_NULL_SAFE) {
        if (right instanceof LeafKernels.LiteralKernel lit) {
          Vec out = againstConstant(left.eval(in, active), lit.constant(), op, in.rows);
          if (out != null) {
            return out;
          }
        } else if (left instanceof LeafKernels.LiteralKernel lit) {
          Vec out = againstConstant(right.eval(in, active), lit.constant(), flip(op), in.rows);
          if (out != null) {
            return out;
          }
        }
      }
      Vec a = left.eval(in, active);
      Vec b = right.eval(in, active);
      int n = in.rows;
      Vec out = Vec.allocate(type, n);
      long[] bits = out.bits;
      switch (a.kind) {
        case Vec.LONG -> longs(a.longs, b.longs, n, bits);
        case Vec.DOUBLE -> doubles(a.doubles, b.doubles, n, bits);
        case Vec.DECIMAL -> {
          if (a.his == null) {
            longs(a.longs, b.longs, n, bits);
          } else {
            for (int i = 0; i < n; i++) {
              set(bits, i, test(op, Int128.compare(a.his[i], a.longs[i], b.his[i], b.longs[i])));
            }
          }
        }
        case Vec.BYTES -> {
          if (op == EQ || op == EQ_NULL_SAFE) {
            for (int i = 0; i < n; i++) {
              int len = a.lens[i];
              set(bits, i, len == b.lens[i] && bytesEqual(a.data, a.starts[i], b.data, b.starts[i], len));
            }
          } else {
            for (int i = 0; i < n; i++) {
              set(bits, i, test(op, compareBytes(a.data, a.starts[i], a.lens[i], b.data, b.starts[i], b.lens[i])));
            }
          }
        }
        case Vec.BOOL -> {
          for (int w = 0; w < bits.length; w++) {
            long x = a.bits[w];
            long y = b.bits[w];
            bits[w] = switch (op) {
              case EQ, EQ_NULL_SAFE -> ~(x ^ y);
              case LT -> ~x & y;
              case LE -> ~x | y;
              case GT -> x & ~y;
              default -> x | ~y;
            };
          }
        }
        case Vec.NULL -> { }
        default -> throw new IllegalStateException("comparison of " + a.type.simpleString());
      }
      if (op == EQ_NULL_SAFE) {
        // both null: true; one null: false; never null
        long[] av = a.valid;
        long[] bv = b.valid;
        if (av != null || bv != null) {
          for (int w = 0; w < bits.length; w++) {
            long x = av == null ? -1L : av[w];
            long y = bv == null ? -1L : bv[w];
            bits[w] = (bits[w] & x & y) | (~x & ~y);
          }
        }
        clearTail(bits, n);
      } else {
        out.valid = Vec.andValid(a.valid, b.valid);
      }
      return out;
    }

    /**
     * a op constant without broadcasting the constant, for the kinds where that is a tight loop (integral, date,
     * timestamp, decimal up to 18 digits, string equality); null for the others.
     */
    private Vec againstConstant(Vec a, Vec c, int op, int n) {
      if (!c.isValid(0)) {
        Vec out = Vec.allocate(type, n);
        out.valid = new long[Vec.words(n)];
        return out;
      }
      if (a.kind == Vec.LONG || (a.kind == Vec.DECIMAL && a.his == null)) {
        Vec out = Vec.allocate(type, n);
        constantLongs(a.longs, c.longs[0], op, n, out.bits);
        out.valid = a.valid;
        return out;
      }
      if (a.kind == Vec.BYTES && op == EQ) {
        Vec out = Vec.allocate(type, n);
        if (shortStrings == null) {
          shortStrings = new ShortStrings(new byte[][] {
              java.util.Arrays.copyOfRange(c.data, c.starts[0], c.starts[0] + c.lens[0])});
        }
        shortStrings.matchInto(a, n, out.bits);
        out.valid = a.valid;
        return out;
      }
      return null;
    }

    private static void constantLongs(long[] a, long c, int op, int n, long[] bits) {
      for (int w = 0, base = 0; base < n; w++, base += 64) {
        int end = Math.min(64, n - base);
        long word = 0;
        switch (op) {
          case EQ -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] == c ? 1L : 0L) << j;
            }
          }
          case LT -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] < c ? 1L : 0L) << j;
            }
          }
          case LE -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] <= c ? 1L : 0L) << j;
            }
          }
          case GT -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] > c ? 1L : 0L) << j;
            }
          }
          default -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] >= c ? 1L : 0L) << j;
            }
          }
        }
        bits[w] = word;
      }
    }

    /** One word of results at a time, kept in a register (no read-modify-write of the bitmap per row). */
    private void longs(long[] a, long[] b, int n, long[] bits) {
      for (int w = 0, base = 0; base < n; w++, base += 64) {
        int end = Math.min(64, n - base);
        long word = 0;
        switch (op) {
          case EQ, EQ_NULL_SAFE -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] == b[base + j] ? 1L : 0L) << j;
            }
          }
          case LT -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] < b[base + j] ? 1L : 0L) << j;
            }
          }
          case LE -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] <= b[base + j] ? 1L : 0L) << j;
            }
          }
          case GT -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] > b[base + j] ? 1L : 0L) << j;
            }
          }
          default -> {
            for (int j = 0; j < end; j++) {
              word |= (a[base + j] >= b[base + j] ? 1L : 0L) << j;
            }
          }
        }
        bits[w] = word;
      }
    }

    private void doubles(double[] a, double[] b, int n, long[] bits) {
      for (int w = 0, base = 0; base < n; w++, base += 64) {
        int end = Math.min(64, n - base);
        long word = 0;
        for (int j = 0; j < end; j++) {
          word |= (test(op, compareDoubles(a[base + j], b[base + j])) ? 1L : 0L) << j;
        }
        bits[w] = word;
      }
    }
  }

  /** The operator with its sides swapped: c op x is x flip(op) c. */
  static int flip(int op) {
    return switch (op) {
      case LT -> GT;
      case LE -> GE;
      case GT -> LT;
      case GE -> LE;
      default -> op;
    };
  }

  static void set(long[] bits, int i, boolean b) {
    bits[i >>> 6] |= (b ? 1L : 0L) << i;
  }

  static void clearTail(long[] bits, int n) {
    if ((n & 63) != 0 && bits.length > 0) {
      bits[bits.length - 1] &= (1L << n) - 1;
    }
  }

  /**
   * value IN (item, ...): true when some item equals it, else null when an item is null, else false. All-literal
   * lists are compared against a prepared vector; other lists evaluate item k only where no earlier item matched,
   * as Spark's In does.
   */
  static Kernel in(Expression e, ExpressionPlanning p) {
    In in = (In) e;
    DataType t = p.checkType(in.value().dataType(), e);
    List<Literal> literals = new ArrayList<>();
    List<Kernel> items = new ArrayList<>();
    for (Expression item : CollectionConverters.asJava(in.list())) {
      if (!item.dataType().sameType(t)) {
        throw p.refuse("IN list items of another type than the value's: " + e.sql());
      }
      if (item instanceof Literal l) {
        literals.add(l);
      }
      items.add(p.child(item));
    }
    if (literals.size() == items.size()) {
      return new InKernel(e, p.child(in.value()), t, literals.stream().map(Literal::value).toArray());
    }
    return new InItems(e, p.child(in.value()), items.toArray(new Kernel[0]));
  }

  static final class InItems extends Kernel {
    final Kernel value;
    final Kernel[] items;

    InItems(Expression e, Kernel value, Kernel[] items) {
      super(e);
      this.value = value;
      this.items = items;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      Vec a = value.eval(in, active);
      long[] open = ConditionalKernels.and(active, a.valid == null ? Vec.allValid(n) : a.valid);
      long[] found = new long[Vec.words(n)];
      long[] sawNull = new long[found.length];
      for (Kernel k : items) {
        long[] still = LogicKernels.without(open, found, n);
        Vec v = k.eval(in, still);
        for (int i = 0; i < n; i++) {
          if ((still[i >>> 6] & (1L << i)) != 0) {
            if (!v.isValid(i)) {
              sawNull[i >>> 6] |= 1L << i;
            } else if (compareAt(a, i, v, i) == 0) {
              found[i >>> 6] |= 1L << i;
            }
          }
        }
      }
      Vec out = new Vec(type, n);
      out.bits = found;
      long[] valid = a.valid == null ? Vec.allValid(n) : a.valid.clone();
      for (int w = 0; w < valid.length; w++) {
        valid[w] &= found[w] | ~sawNull[w];
      }
      out.valid = valid;
      return out;
    }
  }

  /** Spark's InSet (an IN over many literals, as a set): not for floating values, whose set holds NaN apart. */
  static Kernel inSet(Expression e, ExpressionPlanning p) {
    InSet s = (InSet) e;
    DataType t = p.checkType(s.child().dataType(), e);
    if (t instanceof FloatType || t instanceof DoubleType) {
      throw p.refuse("InSet over floating values: " + e.sql());
    }
    return new InKernel(e, p.child(s.child()), t, CollectionConverters.asJava(s.hset()).toArray());
  }

  static final class InKernel extends Kernel {
    final Kernel value;
    final Vec items;
    final boolean anyNullItem;
    /** String items, prepared on first use. */
    private ShortStrings shortStrings;

    InKernel(Expression e, Kernel value, DataType itemType, Object[] items) {
      super(e);
      this.value = value;
      int count = 0;
      boolean anyNull = false;
      for (Object o : items) {
        if (o == null) {
          anyNull = true;
        } else {
          count++;
        }
      }
      Vec v = Vec.allocate(itemType, count);
      List<byte[]> bytes = new ArrayList<>();
      int k = 0;
      for (Object o : items) {
        if (o != null) {
          if (v.kind == Vec.BYTES) {
            byte[] b = o instanceof org.apache.spark.unsafe.types.UTF8String s ? s.getBytes() : (byte[]) o;
            bytes.add(b);
          } else {
            v.setSparkValue(k, o);
          }
          k++;
        }
      }
      if (v.kind == Vec.BYTES) {
        int total = bytes.stream().mapToInt(b -> b.length).sum();
        v.data = new byte[total];
        int at = 0;
        for (int i = 0; i < bytes.size(); i++) {
          byte[] b = bytes.get(i);
          System.arraycopy(b, 0, v.data, at, b.length);
          v.starts[i] = at;
          v.lens[i] = b.length;
          at += b.length;
        }
      }
      this.items = v;
      this.anyNullItem = anyNull;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      Vec a = value.eval(in, active);
      int n = in.rows;
      Vec out = Vec.allocate(type, n);
      long[] bits = out.bits;
      int m = items.rows;
      if (a.kind == Vec.LONG) {
        long[] v = a.longs;
        long[] set = items.longs;
        for (int i = 0; i < n; i++) {
          long x = v[i];
          boolean found = false;
          for (int j = 0; j < m; j++) {
            found |= x == set[j];
          }
          set(bits, i, found);
        }
      } else if (a.kind == Vec.BYTES) {
        if (shortStrings == null) {
          byte[][] b = new byte[m][];
          for (int j = 0; j < m; j++) {
            b[j] = java.util.Arrays.copyOfRange(items.data, items.starts[j], items.starts[j] + items.lens[j]);
          }
          shortStrings = new ShortStrings(b);
        }
        shortStrings.matchInto(a, n, bits);
      } else if (a.kind != Vec.NULL) {
        for (int i = 0; i < n; i++) {
          boolean found = false;
          for (int j = 0; j < m && !found; j++) {
            found = compareAt(a, i, items, j) == 0;
          }
          set(bits, i, found);
        }
      }
      long[] valid = a.valid == null ? null : a.valid.clone();
      if (anyNullItem) {
        // not found and a null item: null
        valid = valid == null ? bits.clone() : valid;
        for (int w = 0; w < valid.length; w++) {
          valid[w] &= bits[w];
        }
      }
      out.valid = valid;
      return out;
    }
  }
}
