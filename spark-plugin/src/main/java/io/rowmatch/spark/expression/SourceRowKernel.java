package io.rowmatch.spark.expression;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * An expression of one column that can raise no error (the kinds {@link DictionaryConjunct} decides per entry:
 * comparisons, IN, null tests, logic, string prefix/suffix/contains tests, substring, concat, length, year and the
 * conditionals over the column and literals), evaluated once per row of the column's source where the column is
 * deferred (a broadcast join's build column, passed on as row numbers into the build side): each batch's rows then
 * take their source row's answer, one load each. The build side is fixed for the task, so the answers hold for every
 * later batch. TPC-DS's `sum(CASE WHEN d_day_name = 'Sunday' THEN ss_sales_price END)`, seven of them over every
 * store_sales row, read and compared a date's name per row; now each of date_dim's rows is compared once (and q99's
 * `substr(w_warehouse_name, 1, 20)` is cut once per warehouse).
 *
 * <p>Deciding every source row pays once the rows seen outnumber the source's (the rule of the dictionary
 * conjuncts); until then, and for a column that is not deferred, the expression is evaluated row by row. The answer
 * is what the expression gives for the row's value (it depends on the value alone), so it equals the row-by-row one.
 */
final class SourceRowKernel extends Kernel {
  /** Rows in this JVM that took their source row's answer (tests check it happens). */
  private static final AtomicLong ROWS_DECIDED = new AtomicLong();
  private final Kernel inner;
  private final int column;
  /** The source {@link #bySourceRow} answers for (null: none yet). */
  private ValueVector source;
  private Vec bySourceRow;
  private final EntriesOutnumbered entriesOutnumbered = new EntriesOutnumbered();

  SourceRowKernel(Expression expr, Kernel inner, int column) {
    super(expr);
    this.inner = inner;
    this.column = column;
  }

  @Override
  Vec eval(EvalBatch in, long[] active) {
    ValueVector s = in.deferredSource(column);
    if (s == null) {
      return inner.eval(in, active);
    }
    if (s != source) {
      int n = s.getValueCount();
      if (!entriesOutnumbered.count(s, in.rows, n)) {
        return inner.eval(in, active);
      }
      Vec all = ArrowVecs.read(s, in.types[column], n, null); // kept past this batch: not from its scratch
      bySourceRow = inner.eval(EvalBatch.ofColumn(in.types, column, all), null);
      source = s;
    }
    ROWS_DECIDED.addAndGet(in.rows);
    return in.gather(bySourceRow, in.deferredRows(column));
  }

  /** Rows so far in this JVM that took their source row's answer. */
  static long rowsDecided() {
    return ROWS_DECIDED.get();
  }
}
