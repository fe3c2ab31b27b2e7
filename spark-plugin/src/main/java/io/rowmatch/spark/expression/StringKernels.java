package io.rowmatch.spark.expression;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.catalyst.expressions.Concat;
import org.apache.spark.sql.catalyst.expressions.Contains;
import org.apache.spark.sql.catalyst.expressions.EndsWith;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Length;
import org.apache.spark.sql.catalyst.expressions.Like;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.StartsWith;
import org.apache.spark.sql.catalyst.expressions.StringPredicate;
import org.apache.spark.sql.catalyst.expressions.Substring;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * StartsWith, EndsWith, Contains and LIKE over UTF-8 bytes (binary collation), and substring. LIKE with a literal
 * pattern is split at '%' into segments once at planning: 'a%', '%a', '%a%' and '%' are byte tests; others match
 * segment by segment, leftmost first ('_' steps one code point). A pattern with '_' or U+FFFD counts characters,
 * so a value that is not valid UTF-8 (which Spark decodes with replacement characters) is handed to Spark's Like.
 * Concat of strings: the bytes one after the other (UTF8String.concat), null when any input is.
 */
final class StringKernels {
  private StringKernels() {}

  static final int STARTS = 0;
  static final int ENDS = 1;
  static final int CONTAINS = 2;

  static Kernel predicate(Expression e, ExpressionPlanning p) {
    StringPredicate s = (StringPredicate) e;
    binaryStrings(s.left(), e, p);
    binaryStrings(s.right(), e, p);
    int op = e instanceof StartsWith ? STARTS : e instanceof EndsWith ? ENDS : e instanceof Contains ? CONTAINS : -1;
    if (op < 0) {
      throw p.refuse(e.prettyName() + " is not evaluated columnar: " + e.sql());
    }
    return new Predicate(e, op, p.child(s.left()), p.child(s.right()));
  }

  private static void binaryStrings(Expression child, Expression e, ExpressionPlanning p) {
    if (!(child.dataType() instanceof StringType s) || !s.supportsBinaryEquality()) {
      throw p.refuse("string functions over " + child.dataType().simpleString() + ": " + e.sql());
    }
  }

  static boolean startsAt(byte[] d, int s, int l, byte[] pd, int ps, int pl, int at) {
    return at >= 0 && at + pl <= l && java.util.Arrays.equals(d, s + at, s + at + pl, pd, ps, ps + pl);
  }

  static boolean contains(byte[] d, int s, int l, byte[] pd, int ps, int pl) {
    return indexOf(d, s, l, pd, ps, pl, 0) >= 0;
  }

  /** Little-endian 8-byte reads of a byte[] at any offset (bounds-checked, one load). */
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long LOW7 = 0x7F7F7F7F7F7F7F7FL;
  private static final long EACH_BYTE = 0x0101010101010101L;

  /**
   * The first position at or after {@code from} where the pattern bytes occur, or -1. Eight candidate positions at
   * a time: a position is compared whole only where both its first and its last byte are the pattern's (a word of
   * eight first bytes and one of eight last bytes, tested byte-wise in registers), since a text's common letters
   * make the first byte alone a poor filter (TPC-H q13's '%special%requests%' over o_comment).
   */
  static int indexOf(byte[] d, int s, int l, byte[] pd, int ps, int pl, int from) {
    if (pl == 0) {
      return from <= l ? from : -1;
    }
    byte first = pd[ps];
    int last = l - pl;
    int i = from;
    if (i <= last - 7) {
      long firsts = (first & 0xFFL) * EACH_BYTE;
      long lasts = (pd[ps + pl - 1] & 0xFFL) * EACH_BYTE;
      // Candidates i..i+7: their first bytes from s+i, their last bytes from s+i+pl-1; both reads end inside the
      // value (i + 7 <= last = l - pl).
      for (; i <= last - 7; i += 8) {
        long x = ((long) LONGS.get(d, s + i) ^ firsts) | ((long) LONGS.get(d, s + i + pl - 1) ^ lasts);
        // 0x80 in each byte of x that is 0 (exact: no carry crosses a byte), i.e. each candidate to compare.
        for (long hit = ~(((x & LOW7) + LOW7) | x | LOW7); hit != 0; hit &= hit - 1) {
          int at = i + (Long.numberOfTrailingZeros(hit) >>> 3);
          if (java.util.Arrays.equals(d, s + at, s + at + pl, pd, ps, ps + pl)) {
            return at;
          }
        }
      }
    }
    for (; i <= last; i++) {
      if (d[s + i] == first && java.util.Arrays.equals(d, s + i, s + i + pl, pd, ps, ps + pl)) {
        return i;
      }
    }
    return -1;
  }

  static final class Predicate extends BinaryKernel {
    final int op;

    Predicate(Expression e, int op, Kernel left, Kernel right) {
      super(e, left, right);
      this.op = op;
    }

    @Override
    void compute(Vec a, Vec b, Vec out, int n, long[] active) {
      long[] bits = out.bits;
      for (int i = 0; i < n; i++) {
        int l = a.lens[i];
        int pl = b.lens[i];
        boolean m = switch (op) {
          case STARTS -> startsAt(a.data, a.starts[i], l, b.data, b.starts[i], pl, 0);
          case ENDS -> startsAt(a.data, a.starts[i], l, b.data, b.starts[i], pl, l - pl);
          default -> contains(a.data, a.starts[i], l, b.data, b.starts[i], pl);
        };
        bits[i >>> 6] |= (m ? 1L : 0L) << i;
      }
    }
  }

  // ---- LIKE ----

  static Kernel like(Expression e, ExpressionPlanning p) {
    Like like = (Like) e;
    binaryStrings(like.left(), e, p);
    if (!(like.right() instanceof Literal lit) || lit.value() == null) {
      throw p.refuse("LIKE with a pattern that is not a literal: " + e.sql());
    }
    LikePattern pattern = LikePattern.parse(lit.value().toString(), like.escapeChar());
    if (pattern == null) {
      throw p.refuse("LIKE pattern with an invalid escape (Spark raises the error): " + e.sql());
    }
    return new LikeKernel(e, p.child(like.left()), pattern);
  }

  /** A LIKE pattern: segments between '%'; in a segment, literal UTF-8 runs and '_' (one code point). */
  static final class LikePattern {
    /** Each segment: parts, a byte[] (literal) or null ('_'). */
    final List<List<byte[]>> segments = new ArrayList<>();
    boolean leadingPercent;
    boolean trailingPercent;
    boolean countsChars;

    static LikePattern parse(String pattern, char escape) {
      LikePattern p = new LikePattern();
      List<byte[]> segment = new ArrayList<>();
      StringBuilder literal = new StringBuilder();
      int[] cps = pattern.codePoints().toArray();
      boolean any = false;
      for (int i = 0; i < cps.length; i++) {
        int c = cps[i];
        if (c == escape) {
          if (i + 1 >= cps.length) {
            return null;
          }
          int next = cps[++i];
          if (next != '_' && next != '%' && next != escape) {
            return null;
          }
          literal.appendCodePoint(next);
        } else if (c == '%') {
          flush(literal, segment);
          if (!any && segment.isEmpty()) {
            p.leadingPercent = true;
          } else if (!segment.isEmpty()) {
            p.segments.add(segment);
            segment = new ArrayList<>();
          }
          p.trailingPercent = true;
          any = true;
          continue;
        } else if (c == '_') {
          flush(literal, segment);
          segment.add(null);
          p.countsChars = true;
        } else {
          if (c == 0xFFFD) {
            p.countsChars = true;
          }
          literal.appendCodePoint(c);
        }
        any = true;
        p.trailingPercent = false;
      }
      flush(literal, segment);
      if (!segment.isEmpty() || p.segments.isEmpty() && !p.leadingPercent) {
        p.segments.add(segment);
      }
      return p;
    }

    private static void flush(StringBuilder literal, List<byte[]> segment) {
      if (literal.length() > 0) {
        segment.add(literal.toString().getBytes(StandardCharsets.UTF_8));
        literal.setLength(0);
      }
    }

    /** The one literal of a segment without '_', or null. */
    static byte[] plain(List<byte[]> segment) {
      if (segment.isEmpty()) {
        return new byte[0];
      }
      if (segment.size() == 1 && segment.get(0) != null) {
        return segment.get(0);
      }
      return null;
    }

    /** The end of segment matched at byte {@code at} of the value, or -1. */
    static int matchAt(List<byte[]> segment, byte[] d, int s, int l, int at) {
      int pos = at;
      for (byte[] part : segment) {
        if (part == null) {
          if (pos >= l) {
            return -1;
          }
          pos += codePointLength(d[s + pos]);
          if (pos > l) {
            return -1;
          }
        } else {
          if (!startsAt(d, s, l, part, 0, part.length, pos)) {
            return -1;
          }
          pos += part.length;
        }
      }
      return pos;
    }

    static int codePoints(List<byte[]> segment) {
      int n = 0;
      for (byte[] part : segment) {
        if (part == null) {
          n++;
        } else {
          String t = new String(part, StandardCharsets.UTF_8);
          n += t.codePointCount(0, t.length());
        }
      }
      return n;
    }

    boolean matches(byte[] d, int s, int l) {
      int count = segments.size();
      if (count == 0) {
        return leadingPercent || l == 0; // '%' matches everything, '' only the empty value
      }
      int pos = 0;
      int first = 0;
      if (!leadingPercent) {
        int end = matchAt(segments.get(0), d, s, l, 0);
        if (end < 0) {
          return false;
        }
        if (count == 1 && !trailingPercent) {
          return end == l;
        }
        pos = end;
        first = 1;
      }
      int lastMiddle = trailingPercent ? count : count - 1;
      for (int k = first; k < lastMiddle; k++) {
        List<byte[]> seg = segments.get(k);
        byte[] plain = plain(seg);
        int found = -1;
        if (plain != null) {
          int at = indexOf(d, s, l, plain, 0, plain.length, pos);
          found = at < 0 ? -1 : at + plain.length;
        } else {
          for (int at = pos; at <= l && found < 0; at++) {
            if (at == l || !isContinuation(d[s + at])) {
              found = matchAt(seg, d, s, l, at);
            }
          }
        }
        if (found < 0) {
          return false;
        }
        pos = found;
      }
      if (!trailingPercent && lastMiddle >= first && (count > 1 || leadingPercent)) {
        // the last segment ends at the value's end: it starts its code point count back from there
        List<byte[]> seg = segments.get(count - 1);
        byte[] plain = plain(seg);
        if (plain != null) {
          int start = l - plain.length;
          return start >= pos && startsAt(d, s, l, plain, 0, plain.length, start);
        }
        int back = codePoints(seg);
        int start = l;
        for (int i = 0; i < back; i++) {
          if (start <= 0) {
            return false;
          }
          start--;
          while (start > 0 && isContinuation(d[s + start])) {
            start--;
          }
        }
        return start >= pos && matchAt(seg, d, s, l, start) == l;
      }
      return true;
    }
  }

  static boolean isContinuation(byte b) {
    return (b & 0xC0) == 0x80;
  }

  static int codePointLength(byte b) {
    int u = b & 0xFF;
    return u < 0x80 ? 1 : u < 0xE0 ? 2 : u < 0xF0 ? 3 : 4;
  }

  /** Whether the bytes are well-formed UTF-8 as Java's decoder reads it (no overlongs, surrogates, > U+10FFFF). */
  static boolean validUtf8(byte[] d, int s, int l) {
    int i = s;
    int end = s + l;
    while (i < end) {
      int b = d[i] & 0xFF;
      if (b < 0x80) {
        i++;
        continue;
      }
      int need;
      int min;
      if (b >= 0xC2 && b <= 0xDF) {
        need = 1;
        min = 0x80;
      } else if (b >= 0xE0 && b <= 0xEF) {
        need = 2;
        min = 0x800;
      } else if (b >= 0xF0 && b <= 0xF4) {
        need = 3;
        min = 0x10000;
      } else {
        return false;
      }
      if (i + need >= end) {
        return false; // fewer continuation bytes than the lead byte announces
      }
      int cp = b & (0x3F >> need);
      for (int k = 1; k <= need; k++) {
        int c = d[i + k] & 0xFF;
        if ((c & 0xC0) != 0x80) {
          return false;
        }
        cp = (cp << 6) | (c & 0x3F);
      }
      if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return false;
      }
      i += need + 1;
    }
    return true;
  }

  static final class LikeKernel extends Kernel {
    final Kernel child;
    final LikePattern pattern;
    /** 0: general, 1: prefix, 2: suffix, 3: contains, 4: everything, 5: equals. */
    final int shape;
    final byte[] literal;

    LikeKernel(Expression e, Kernel child, LikePattern pattern) {
      super(e);
      this.child = child;
      this.pattern = pattern;
      int count = pattern.segments.size();
      byte[] only = count == 1 ? LikePattern.plain(pattern.segments.get(0)) : null;
      if (count == 0 && pattern.leadingPercent) {
        shape = 4;
      } else if (only != null && !pattern.leadingPercent && pattern.trailingPercent) {
        shape = 1;
      } else if (only != null && pattern.leadingPercent && !pattern.trailingPercent) {
        shape = 2;
      } else if (only != null && pattern.leadingPercent) {
        shape = 3;
      } else if (only != null) {
        shape = 5;
      } else {
        shape = 0;
      }
      literal = only;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      Vec a = child.eval(in, active);
      int n = in.rows;
      Vec out = in.allocate(type, n);
      out.valid = a.valid == null ? null : a.valid.clone();
      long[] bits = out.bits;
      byte[] lit = literal;
      for (int i = 0; i < n; i++) {
        byte[] d = a.data;
        int s = a.starts[i];
        int l = a.lens[i];
        boolean m = switch (shape) {
          case 1 -> startsAt(d, s, l, lit, 0, lit.length, 0);
          case 2 -> startsAt(d, s, l, lit, 0, lit.length, l - lit.length);
          case 3 -> contains(d, s, l, lit, 0, lit.length);
          case 4 -> true;
          case 5 -> l == lit.length && startsAt(d, s, l, lit, 0, lit.length, 0);
          default -> pattern.matches(d, s, l);
        };
        bits[i >>> 6] |= (m ? 1L : 0L) << i;
      }
      if (pattern.countsChars) {
        long[] hard = new long[Vec.words(n)];
        long any = 0;
        for (int i = 0; i < n; i++) {
          if (a.isValid(i) && !validUtf8(a.data, a.starts[i], a.lens[i])) {
            hard[i >>> 6] |= 1L << i;
            any = 1;
          }
        }
        if (any != 0) {
          Vec pat = new Vec(((Like) expr).right().dataType(), n); // the literal pattern, per row
          pat.data = ((Like) expr).right().eval(null).toString().getBytes(StandardCharsets.UTF_8);
          pat.starts = new int[n];
          pat.lens = new int[n];
          java.util.Arrays.fill(pat.lens, pat.data.length);
          ArithmeticKernels.fallback(this, out, new Vec[] {a, pat}, hard, null);
        }
      }
      return out;
    }
  }

  // ---- length ----

  static Kernel length(Expression e, ExpressionPlanning p) {
    Length len = (Length) e;
    DataType t = len.child().dataType();
    if (!(t instanceof StringType) && !(t instanceof org.apache.spark.sql.types.BinaryType)) {
      throw p.refuse("length of " + t.simpleString() + ": " + e.sql());
    }
    return new LengthKernel(e, p.child(len.child()), t instanceof StringType);
  }

  /** Characters of a string as Spark counts them (UTF8String.numChars, over our bytes), bytes of a binary. */
  static final class LengthKernel extends Kernel {
    final Kernel child;
    final boolean chars;

    LengthKernel(Expression e, Kernel child, boolean chars) {
      super(e);
      this.child = child;
      this.chars = chars;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      Vec c = child.eval(in, active);
      int n = in.rows;
      Vec out = in.allocate(type, n);
      out.valid = c.valid;
      for (int i = 0; i < n; i++) {
        out.longs[i] = chars
            ? UTF8String.fromAddress(c.data, Platform.BYTE_ARRAY_OFFSET + c.starts[i], c.lens[i]).numChars()
            : c.lens[i];
      }
      return out;
    }
  }

  // ---- substring ----

  static Kernel substring(Expression e, ExpressionPlanning p) {
    Substring s = (Substring) e;
    if (!(s.str().dataType() instanceof StringType)) {
      throw p.refuse("substring of " + s.str().dataType().simpleString() + ": " + e.sql());
    }
    if (!(s.pos().dataType() instanceof IntegerType) || !(s.len().dataType() instanceof IntegerType)) {
      throw p.refuse("substring with non-int position or length: " + e.sql());
    }
    return new SubstringKernel(e, p.child(s.str()), p.child(s.pos()), p.child(s.len()));
  }

  /**
   * Spark's UTF8String.substringSQL on each value, as a slice of it: the output shares the input's bytes (no copy,
   * no UTF8String per value), and a positive or zero position walks only the characters before the slice's end.
   */
  static final class SubstringKernel extends Kernel {
    final Kernel str;
    final Kernel pos;
    final Kernel len;

    SubstringKernel(Expression e, Kernel str, Kernel pos, Kernel len) {
      super(e);
      this.str = str;
      this.pos = pos;
      this.len = len;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      Vec s = str.eval(in, active);
      Vec p = pos.eval(in, active);
      Vec l = len.eval(in, active);
      int n = in.rows;
      Vec out = in.allocate(type, n);
      out.valid = Vec.andValid(Vec.andValid(s.valid, p.valid), l.valid);
      out.data = s.data != null ? s.data : new byte[0];
      for (int i = 0; i < n; i++) {
        if (out.isValid(i)) {
          long slice = slice(s.data, s.starts[i], s.lens[i], (int) p.longs[i], (int) l.longs[i]);
          out.starts[i] = s.starts[i] + (int) (slice >>> 32);
          out.lens[i] = (int) slice;
        } else {
          out.starts[i] = 0;
          out.lens[i] = 0;
        }
      }
      return out;
    }
  }

  /**
   * UTF8String.substringSQL(pos, length) of the value {@code data[at, at + n)} as its slice: the byte offset in the
   * high word, the byte length in the low one. A character's width is Spark's (numBytesForFirstByte); where a last
   * malformed character claims bytes past the value, the slice ends at the value's end (Spark would copy the bytes
   * after it).
   */
  static long slice(byte[] data, int at, int n, int pos, int length) {
    // A negative position counts from the end: the one case that needs the value's character count (Spark's own).
    int start = pos > 0 ? pos - 1
        : pos < 0 ? UTF8String.fromAddress(data, Platform.BYTE_ARRAY_OFFSET + at, n).numChars() + pos : 0;
    long until = (long) start + length;
    int end = until > Integer.MAX_VALUE ? Integer.MAX_VALUE : until < Integer.MIN_VALUE ? Integer.MIN_VALUE
        : (int) until;
    start = Math.max(start, 0);
    if (start >= end || start >= n) {
      return 0;
    }
    int i = 0;
    int c = 0;
    while (i < n && c < start) {
      i += width(data[at + i]);
      c++;
    }
    int from = i;
    while (i < n && c < end) {
      i += width(data[at + i]);
      c++;
    }
    int to = Math.min(i, n);
    return to > from ? (long) from << 32 | (to - from) : 0;
  }

  /** The bytes of the character starting with b, as Spark counts them (ASCII without the table lookup). */
  private static int width(byte b) {
    return b >= 0 ? 1 : UTF8String.numBytesForFirstByte(b);
  }

  // ---- concat ----

  static Kernel concat(Expression e, ExpressionPlanning p) {
    Concat c = (Concat) e;
    if (!(e.dataType() instanceof StringType)) {
      throw p.refuse("concat of " + e.dataType().simpleString() + " is not evaluated columnar: " + e.sql());
    }
    List<Expression> inputs = scala.jdk.javaapi.CollectionConverters.asJava(c.children());
    Kernel[] kernels = new Kernel[inputs.size()];
    for (int i = 0; i < kernels.length; i++) {
      binaryStrings(inputs.get(i), e, p);
      kernels[i] = p.child(inputs.get(i));
    }
    return new ConcatKernel(e, kernels);
  }

  /** The inputs' bytes one after the other (UTF8String.concat); null where any input is; concat() is ''. */
  static final class ConcatKernel extends Kernel {
    final Kernel[] inputs;

    ConcatKernel(Expression e, Kernel[] inputs) {
      super(e);
      this.inputs = inputs;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      Vec[] parts = new Vec[inputs.length];
      Vec out = in.allocate(type, n);
      for (int k = 0; k < parts.length; k++) {
        parts[k] = inputs[k].eval(in, active);
        out.valid = Vec.andValid(out.valid, parts[k].valid);
      }
      long total = 0;
      for (int i = 0; i < n; i++) {
        if (out.isValid(i)) { // a length under a null is unspecified
          for (Vec v : parts) {
            total += v.lens[i];
          }
        }
      }
      if (total > Integer.MAX_VALUE - Vec.BYTES_PAD) {
        throw new IllegalStateException("concat of " + n + " rows makes " + total + " bytes, over a vector's 2 GB: "
            + expr.sql());
      }
      byte[] data = new byte[(int) total + Vec.BYTES_PAD]; // padded as strings read from Arrow (ShortStrings)
      int at = 0;
      for (int i = 0; i < n; i++) {
        out.starts[i] = at;
        if (out.isValid(i)) {
          for (Vec v : parts) {
            int l = v.lens[i];
            System.arraycopy(v.data, v.starts[i], data, at, l);
            at += l;
          }
        }
        out.lens[i] = at - out.starts[i];
      }
      out.data = data;
      return out;
    }
  }
}
