package io.rowmatch.spark.expression;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.CaseWhen;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.Concat;
import org.apache.spark.sql.catalyst.expressions.Contains;
import org.apache.spark.sql.catalyst.expressions.EndsWith;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.InSet;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Length;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Not;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.StartsWith;
import org.apache.spark.sql.catalyst.expressions.Substring;
import org.apache.spark.sql.catalyst.expressions.Year;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.arrow.SparkColumnMemory;

/**
 * Filter conjuncts that read one column and can raise no error, decided once per dictionary entry where a scan hands
 * that column over dictionary-encoded: each conjunct is evaluated on the dictionary's entries (and once on a null),
 * their answers ANDed per entry, and each row takes its entry's answer through its id. A Parquet column chunk's
 * dictionary is shared by all its batches, so the entries are evaluated once per chunk; a row costs one id load and
 * one table load per column, where the row-wise kernels decode the id, then compare (each conjunct again).
 *
 * <p>Only conjuncts whose every node is a comparison, IN, null test, logic, string-prefix/suffix/contains test or
 * error-free value function (substring, concat, length, year, If/CASE/COALESCE) over the column and literals qualify:
 * they raise no error and depend on the value alone, so evaluating them on entries no active row holds changes
 * nothing Spark would see. For the same reason the conjuncts over one column
 * are decided together, in one pass over the rows, at the first of them ({@link #grouped}; TPC-H q6 has eight
 * conjuncts over three columns): deciding a later one early only shrinks the rows the conjuncts between are
 * evaluated on, which matters where one of those may raise an error, so such a conjunct ends the groups before it.
 */
final class DictionaryConjunct {
  /** The conjuncts' only input column. */
  private final int column;
  /** The conjuncts, in the filter's order; the first one's position is where the group is decided. */
  private final List<Kernel> kernels = new ArrayList<>();
  private final int first;
  /** The dictionary the table below answers for (its {@link SparkColumnMemory.DictionaryIds#identity}); null: none. */
  private Object identity;
  /** Per dictionary id, 1 where every conjunct holds; the last entry is a null row's answer. */
  private byte[] holds;
  private final EntriesOutnumbered entriesOutnumbered = new EntriesOutnumbered();

  private DictionaryConjunct(int column, int first) {
    this.column = column;
    this.first = first;
  }

  /**
   * Per conjunct, the group that decides it per dictionary entry (one object for all the conjuncts it decides), or
   * null for a conjunct that reads more than one column or might raise an error.
   */
  static DictionaryConjunct[] grouped(List<? extends Expression> conjuncts, Kernel[] kernels,
      List<Attribute> input) {
    DictionaryConjunct[] groups = new DictionaryConjunct[conjuncts.size()];
    Map<Integer, DictionaryConjunct> open = new HashMap<>();
    for (int i = 0; i < groups.length; i++) {
      Expression e = conjuncts.get(i);
      int c = onlyColumn(e, input);
      if (c < 0) {
        if (!raisesNoError(e, input)) {
          open.clear(); // a later conjunct decided before this one would spare rows this one may fail on
        }
        continue;
      }
      DictionaryConjunct g = open.get(c);
      if (g == null) {
        g = new DictionaryConjunct(c, i);
        open.put(c, g);
      }
      g.kernels.add(kernels[i]);
      groups[i] = g;
    }
    return groups;
  }

  /** True when conjunct i is where this group is decided (the others it decides are then skipped). */
  boolean decidedAt(int i) {
    return i == first;
  }

  /** How many conjuncts the group decides. */
  int size() {
    return kernels.size();
  }

  /**
   * The rows of the batch where every conjunct of the group holds (bitmap words; rows outside {@code active} may
   * read 0 whatever they hold), or null when its column is not dictionary-encoded in this batch (the caller
   * evaluates each conjunct row by row).
   */
  long[] holds(EvalBatch in, long[] active) {
    EvalBatch.EncodedColumn ec = in.encoded(column);
    if (ec == null) {
      return null;
    }
    SparkColumnMemory.DictionaryIds e = ec.encoded();
    if (!e.identity().equals(identity)) {
      // Deciding every entry pays once the dictionary's rows outnumber its entries: until then (a large
      // dictionary, small batches) the rows are evaluated as they come, counted against the entries.
      if (!entriesOutnumbered.count(e.identity(), in.rows, e.size())) {
        return null;
      }
      Vec entries = ec.reader().entries(e);
      EvalBatch byEntry = EvalBatch.ofColumn(in.types, column, entries);
      byte[] h = new byte[entries.rows];
      java.util.Arrays.fill(h, (byte) 1);
      for (Kernel k : kernels) {
        long[] t = LogicKernels.trues(k.eval(byEntry, null));
        for (int id = 0; id < h.length; id++) {
          h[id] &= (byte) ((t[id >>> 6] >>> id) & 1);
        }
      }
      holds = h;
      identity = e.identity();
    }
    try {
      return rows(e.ids(), e.nulls(), ec.rows(), in.rows, holds, active);
    } catch (ArrayIndexOutOfBoundsException x) {
      throw new IllegalStateException("a dictionary id of input column " + column + " is outside its dictionary of "
          + e.size() + " entries", x);
    }
  }

  /**
   * Each active row's answer: {@code holds[id]}, or {@code holds[size]} (the null row's) where the row is null; a
   * word of 64 rows none of which is active is left 0.
   */
  private static long[] rows(int[] ids, byte[] nulls, int[] sel, int n, byte[] holds, long[] active) {
    long[] out = new long[Vec.words(n)];
    int nullId = holds.length - 1;
    for (int w = 0, base = 0; base < n; w++, base += 64) {
      if (active != null && active[w] == 0) {
        continue;
      }
      int end = Math.min(64, n - base);
      long word = 0;
      if (sel == null && nulls == null) {
        for (int j = 0; j < end; j++) {
          word |= (long) holds[ids[base + j]] << j;
        }
      } else if (sel == null) {
        for (int j = 0; j < end; j++) {
          int r = base + j;
          word |= (long) holds[nulls[r] != 0 ? nullId : ids[r]] << j;
        }
      } else {
        for (int j = 0; j < end; j++) {
          int r = sel[base + j];
          word |= (long) holds[nulls != null && nulls[r] != 0 ? nullId : ids[r]] << j;
        }
      }
      out[w] = word;
    }
    return out;
  }

  /** The one input column e reads when every node of it raises no error (see the class comment), else -1. */
  static int onlyColumn(Expression e, List<Attribute> input) {
    int[] found = {-1};
    return collect(e, input, found, true) ? found[0] : -1;
  }

  /** True when every node of e is of the kinds that raise no error (whatever columns it reads). */
  static boolean raisesNoError(Expression e, List<Attribute> input) {
    return collect(e, input, new int[] {-1}, false);
  }

  /**
   * Value functions that raise no error and depend on their inputs' values alone: substrings, string concatenation
   * and length, a date's year, and the conditionals (If, CASE, COALESCE) whose parts qualify in turn.
   */
  private static boolean errorFreeValueFunction(Expression e) {
    return e instanceof Substring || e instanceof Concat || e instanceof Length || e instanceof Year
        || e instanceof If || e instanceof CaseWhen || e instanceof Coalesce;
  }

  private static boolean collect(Expression e, List<Attribute> input, int[] found, boolean oneColumn) {
    int ordinal = -1;
    if (e instanceof BoundReference b) {
      ordinal = b.ordinal();
    } else if (e instanceof Attribute a) {
      for (int i = 0; i < input.size(); i++) {
        if (input.get(i).exprId().equals(a.exprId())) {
          ordinal = i;
        }
      }
      if (ordinal < 0) {
        return false;
      }
    } else if (!(e instanceof Literal || e instanceof And || e instanceof Or || e instanceof Not
        || e instanceof IsNull || e instanceof IsNotNull || e instanceof EqualTo || e instanceof EqualNullSafe
        || e instanceof LessThan || e instanceof LessThanOrEqual || e instanceof GreaterThan
        || e instanceof GreaterThanOrEqual || e instanceof In || e instanceof InSet || e instanceof StartsWith
        || e instanceof EndsWith || e instanceof Contains || errorFreeValueFunction(e))) {
      return false;
    }
    if (ordinal >= 0) {
      if (oneColumn && found[0] >= 0 && found[0] != ordinal) {
        return false;
      }
      found[0] = ordinal;
      return true;
    }
    for (Expression child : CollectionConverters.asJava(e.children())) {
      if (!collect(child, input, found, oneColumn)) {
        return false;
      }
    }
    return true;
  }
}
