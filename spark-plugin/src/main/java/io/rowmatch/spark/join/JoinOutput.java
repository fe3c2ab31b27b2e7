package io.rowmatch.spark.join;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.core.arrow.ArrowCopy;
import io.rowmatch.spark.arrow.ArrowSchemas;
import io.rowmatch.spark.arrow.ConvertOnReadColumn;
import io.rowmatch.spark.arrow.DeferredGatherVector;
import io.rowmatch.spark.arrow.RowReadArrowColumnVector;

/**
 * Assembles join output batches: each output column is gathered from the probe batch or the build columns
 * at given row indices (-1, or no index array at all, for the null-padded side of an outer join). Fresh
 * vectors per batch (the consumer reads a batch before asking for the next; the previous one is released
 * then), filled column by column by {@link ArrowCopy#gather} (buffer to buffer for fixed and variable width,
 * Arrow's copyFromSafe for the rest). Small chunks of pairs can instead be appended to one batch being coalesced
 * ({@link #append}, {@link #flush}). One per task: it keeps scratch arrays between batches.
 *
 * <p>Deferred columns ({@link DeferredGatherVector}): the build columns of a build side that lives as long as the
 * task (a broadcast's, {@code deferBuild}) are not gathered but passed on as row numbers into the build column; a
 * probe column that arrives deferred (from a broadcast join below) is passed on with its row numbers composed. A
 * chain of broadcast joins thus copies each dimension column once, where something finally reads it.
 *
 * <p>A gather of every probe row in order (a foreign key matching one dimension row each, a semi join that keeps
 * every row) passes the probe batch's columns on uncopied: they stay valid as long as the output batch is read,
 * and the output batch's {@code close} leaves them to the probe side's producer. Any other gather passes a probe
 * column that is still a scan's unconverted column on as a selection of it ({@link ConvertOnReadColumn#select}), with
 * the same lifetime: each scan column is then read once, where something reads it, for the rows every join below
 * kept (TPC-DS q61: six broadcast joins over store_sales copied its columns at each join, a third of its time).
 */
public final class JoinOutput implements AutoCloseable {
  /** Output batches in this JVM that passed the probe batch's columns on uncopied (tests check it happens). */
  private static final AtomicLong WHOLE_PROBE_BATCHES = new AtomicLong();
  private static final AtomicLong SELECTED_PROBE_COLUMNS = new AtomicLong();
  private final List<Field> fields = new ArrayList<>();
  /** Per output column: true when it comes from the probe side; and its ordinal in that side's columns. */
  private final boolean[] fromProbe;
  private final int[] ordinal;
  /** An existence join's last column, the non-null boolean "exists" (-1: none). */
  private final int existsColumn;
  /** Scratch for variable-width gathers, grown to the largest batch. */
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();
  /** Build columns are passed on deferred: the build side outlives every output batch (a broadcast's). */
  private final boolean deferBuild;
  /** Per build column, whether it is deferred (null until the first batch). */
  private boolean[] buildDeferrable;
  /** The current probe batch's deferred columns by probe ordinal (null entries: Arrow vectors; null: none). */
  private DeferredGatherVector[] probeDeferred;
  /** The current probe batch (null: none), whose columns a gather of all its rows in order passes on as they are. */
  private ColumnarBatch probeBatch;
  /**
   * The batch being coalesced by {@link #append} (null: none) and its rows so far. Per column either a vector
   * being filled, or (null there) the source and row numbers of a column kept deferred.
   */
  private FieldVector[] appended;
  private ValueVector[] appendedSource;
  private int[][] appendedSourceRows;
  private BufferAllocator appendAllocator;
  private int appendedRows;

  public JoinOutput(JoinSpec spec) {
    this(spec, false);
  }

  public JoinOutput(JoinSpec spec, boolean deferBuild) {
    this.deferBuild = deferBuild;
    StructType left = spec.leftSchema;
    StructType right = spec.rightSchema;
    boolean leftIsProbe = !spec.buildLeft;
    boolean exists = spec.kind == JoinSpec.Kind.EXISTENCE;
    int n = spec.fullOutputWidth();
    List<Field> all = new ArrayList<>(n);
    boolean[] allFromProbe = new boolean[n];
    int[] allOrdinal = new int[n];
    List<Field> leftFields = ArrowSchemas.toArrow(left, spec.timeZone).getFields();
    for (int i = 0; i < leftFields.size(); i++) {
      all.add(nullable(leftFields.get(i)));
      allFromProbe[i] = leftIsProbe;
      allOrdinal[i] = i;
    }
    if (!spec.existence()) {
      List<Field> rightFields = ArrowSchemas.toArrow(right, spec.timeZone).getFields();
      int off = leftFields.size();
      for (int i = 0; i < rightFields.size(); i++) {
        all.add(nullable(rightFields.get(i)));
        allFromProbe[off + i] = !leftIsProbe;
        allOrdinal[off + i] = i;
      }
    }
    if (exists) {
      all.add(Field.notNullable("exists", org.apache.arrow.vector.types.pojo.ArrowType.Bool.INSTANCE));
      allFromProbe[n - 1] = true;
    }
    // Only the columns the plan above reads (JoinSpec.outputColumns), in Spark's order.
    int[] kept = spec.outputColumns;
    int width = kept == null ? n : kept.length;
    fromProbe = new boolean[width];
    ordinal = new int[width];
    int existsAt = -1;
    for (int c = 0; c < width; c++) {
      int source = kept == null ? c : kept[c];
      fields.add(all.get(source));
      fromProbe[c] = allFromProbe[source];
      ordinal[c] = allOrdinal[source];
      if (exists && source == n - 1) {
        existsAt = c;
      }
    }
    existsColumn = existsAt;
  }

  private static Field nullable(Field f) {
    // Outer joins pad either side with nulls; Arrow vectors hold validity whatever the flag says.
    return f.isNullable() ? f : new Field(f.getName(), org.apache.arrow.vector.types.pojo.FieldType.nullable(f.getType()),
        f.getChildren());
  }

  /**
   * One output batch of {@code count} rows. {@code probeRows}/{@code buildRows} give each row's source row on
   * that side (-1 = null); a null array means every row is null on that side.
   */
  public ColumnarBatch gather(ValueVector[] probe, int[] probeRows, List<FieldVector> build, int[] buildRows,
      int count, BufferAllocator allocator) {
    return gather(probe, probeRows, build, buildRows, count, null, allocator);
  }

  /**
   * As above, for an existence join: {@code exists[probeRows[i]]} is output row i's "exists" value (the probe
   * row had a passing match).
   */
  public ColumnarBatch gather(ValueVector[] probe, int[] probeRows, List<FieldVector> build, int[] buildRows,
      int count, boolean[] exists, BufferAllocator allocator) {
    ColumnVector[] out = new ColumnVector[fields.size()];
    FieldVector[] made = new FieldVector[out.length];
    boolean[] borrowed = null;
    int[] selectedProbeRows = null;
    boolean wholeProbe = probeBatch != null && probeRows != null && count == probeBatch.numRows()
        && isIdentity(probeRows, count);
    try {
      for (int c = 0; c < out.length; c++) {
        int[] rows = fromProbe[c] ? probeRows : buildRows;
        if (wholeProbe && fromProbe[c] && c != existsColumn) {
          out[c] = probeBatch.column(ordinal[c]);
          if (borrowed == null) {
            borrowed = new boolean[out.length];
          }
          borrowed[c] = true;
          continue;
        }
        if (c != existsColumn && rows != null) {
          int[] sourceRows = deferredRows(c, build, rows, count);
          if (sourceRows != null) {
            out[c] = new DeferredGatherVector(deferredSource(c, build), sourceRows, count, fields.get(c), allocator);
            continue;
          }
        }
        ConvertOnReadColumn unread = rows != null && fromProbe[c] && c != existsColumn ? unconverted(c) : null;
        if (unread != null && count > 0) {
          if (selectedProbeRows == null) {
            selectedProbeRows = probeRowsToSelect(probeRows, count);
          }
          if (selectedProbeRows.length == count) {
            // Still not copied: the rows are selected from the scan's column, read (once) where something
            // reads them, after the joins above have dropped theirs (a chain of broadcast joins over a scan).
            out[c] = unread.select(selectedProbeRows, count, allocator);
            SELECTED_PROBE_COLUMNS.incrementAndGet();
            continue;
          }
        }
        if (unread != null) {
          FieldVector v = unread.gather(rows, count, fields.get(c), allocator);
          made[c] = v;
          out[c] = new RowReadArrowColumnVector(v);
          continue;
        }
        FieldVector v = fields.get(c).createVector(allocator);
        made[c] = v;
        if (c == existsColumn) {
          BitVector bits = (BitVector) v;
          bits.allocateNew(Math.max(count, 1));
          for (int i = 0; i < count; i++) {
            bits.set(i, exists[probeRows[i]] ? 1 : 0);
          }
          bits.setValueCount(count);
        } else if (rows == null) {
          v.setInitialCapacity(Math.max(count, 1));
          v.allocateNew();
          v.setValueCount(count);
        } else {
          // A broadcast build side is read by several tasks at once: the copy takes src's monitor where it
          // reads through src's cached reader (lists, maps).
          ArrowCopy.gather(fromProbe[c] ? probeVector(probe, c) : build.get(ordinal[c]), rows, count, v, scratch);
        }
        // Wrapped once filled: the row reader checks the finished buffers once, then Spark's ColumnarToRow
        // reads each value by address instead of through Arrow's checked accessors.
        out[c] = new RowReadArrowColumnVector(v);
      }
    } catch (RuntimeException | Error e) {
      for (FieldVector v : made) {
        if (v != null) {
          v.close();
        }
      }
      throw e;
    }
    if (borrowed == null) {
      return new ColumnarBatch(out, count);
    }
    WHOLE_PROBE_BATCHES.incrementAndGet();
    return new PartlyBorrowedBatch(out, count, borrowed);
  }

  /** Output batches so far in this JVM whose probe columns were the probe batch's own. */
  public static long wholeProbeBatches() {
    return WHOLE_PROBE_BATCHES.get();
  }

  /** Probe columns in this JVM passed on as a selection of a scan's column, uncopied (tests check it happens). */
  public static long selectedProbeColumns() {
    return SELECTED_PROBE_COLUMNS.get();
  }

  /**
   * The probe rows of an output batch, copied (the caller's array is reused for the next chunk) to be shared by its
   * selected columns; an empty array when some row is null-padded (negative), which a selection cannot hold.
   */
  private static int[] probeRowsToSelect(int[] rows, int count) {
    for (int i = 0; i < count; i++) {
      if (rows[i] < 0) {
        return new int[0];
      }
    }
    return Arrays.copyOf(rows, count);
  }

  private static boolean isIdentity(int[] rows, int count) {
    for (int i = 0; i < count; i++) {
      if (rows[i] != i) {
        return false;
      }
    }
    return true;
  }

  /** An output batch some of whose columns are the probe batch's: closing it closes only its own. */
  private static final class PartlyBorrowedBatch extends ColumnarBatch {
    private final boolean[] borrowed;

    PartlyBorrowedBatch(ColumnVector[] columns, int numRows, boolean[] borrowed) {
      super(columns, numRows);
      this.borrowed = borrowed;
    }

    @Override
    public void close() {
      for (int c = 0; c < columns.length; c++) {
        if (!borrowed[c]) {
          columns[c].close();
        }
      }
    }

    @Override
    public void closeIfFreeable() {
      for (int c = 0; c < columns.length; c++) {
        if (!borrowed[c]) {
          columns[c].closeIfFreeable();
        }
      }
    }
  }

  /**
   * The probe batch (null: none) and its deferred columns by ordinal (null entries for Arrow vectors; null: none),
   * for the gathers and appends until the next probe batch. The deferred columns' sources live as long as the
   * task, so a batch being coalesced may keep row numbers into them across probe batches.
   */
  public void probeBatch(ColumnarBatch batch, DeferredGatherVector[] deferred) {
    this.probeBatch = batch;
    this.probeDeferred = deferred;
  }

  /**
   * Probe column c when it is a scan's column not copied into Arrow yet (its gather takes few rows from Spark's
   * column, many from a bulk copy of the whole); else null.
   */
  private ConvertOnReadColumn unconverted(int c) {
    if (probeBatch != null && probeBatch.column(ordinal[c]) instanceof ConvertOnReadColumn u && !u.isConverted()) {
      return u;
    }
    return null;
  }

  /** Probe column c as an Arrow vector (a column the join did not read is copied into Arrow now). */
  private ValueVector probeVector(ValueVector[] probe, int c) {
    ValueVector v = probe[ordinal[c]];
    return v != null ? v : JoinBuildSide.arrow(probeBatch.column(ordinal[c]), ordinal[c], "RowmatchHashJoin");
  }

  /** Output column c's deferred source for this batch, or null when it is gathered now. */
  private ValueVector deferredSource(int c, List<FieldVector> build) {
    if (fromProbe[c]) {
      DeferredGatherVector d = probeDeferred == null ? null : probeDeferred[ordinal[c]];
      return d == null ? null : d.source();
    }
    if (!deferBuild) {
      return null;
    }
    if (buildDeferrable == null) {
      // The build columns are this output's for its runner's whole life: which are flat is decided once.
      buildDeferrable = new boolean[build.size()];
      for (int i = 0; i < buildDeferrable.length; i++) {
        buildDeferrable[i] = DeferredGatherVector.defers(build.get(i));
      }
    }
    return buildDeferrable[ordinal[c]] ? build.get(ordinal[c]) : null;
  }

  /** Output column c's source rows for these rows when it stays deferred (a new array), else null. */
  private int[] deferredRows(int c, List<FieldVector> build, int[] rows, int count) {
    if (fromProbe[c]) {
      DeferredGatherVector d = probeDeferred == null ? null : probeDeferred[ordinal[c]];
      return d == null ? null : d.compose(rows, count);
    }
    return deferredSource(c, build) == null ? null : Arrays.copyOf(rows, count);
  }

  /** Rows appended since the last {@link #flush}. */
  public int appendedRows() {
    return appendedRows;
  }

  /**
   * Appends {@code count} pairs, each present on both sides ({@code probeRows[i]}, {@code buildRows[i]} >= 0),
   * to the batch being coalesced, opened with room for {@code capacity} rows.
   */
  public void append(ValueVector[] probe, int[] probeRows, List<FieldVector> build, int[] buildRows, int count,
      int capacity, BufferAllocator allocator) {
    if (existsColumn >= 0) {
      throw new IllegalStateException("an existence join emits probe rows, not pairs");
    }
    int width = fields.size();
    if (appended == null) {
      appended = new FieldVector[width];
      appendedSource = new ValueVector[width];
      appendedSourceRows = new int[width][];
      appendAllocator = allocator;
      for (int c = 0; c < width; c++) {
        appendedSource[c] = deferredSource(c, build);
        if (appendedSource[c] != null) {
          appendedSourceRows[c] = new int[Math.max(capacity, count)];
        } else {
          appended[c] = newVector(c, capacity, allocator);
        }
      }
    }
    for (int c = 0; c < width; c++) {
      int[] rows = fromProbe[c] ? probeRows : buildRows;
      ValueVector source = deferredSource(c, build);
      if (appendedSource[c] != null && appendedSource[c] != source) {
        // Deferred so far, but this chunk's column is not (or has another source): gather what is kept.
        FieldVector v = fields.get(c).createVector(allocator);
        try {
          ArrowCopy.gather(appendedSource[c], appendedSourceRows[c], appendedRows, v, scratch);
        } catch (RuntimeException | Error e) {
          v.close();
          throw e;
        }
        appended[c] = v;
        appendedSource[c] = null;
        appendedSourceRows[c] = null;
      }
      if (appendedSource[c] != null) {
        int[] kept = appendedSourceRows[c];
        if (kept.length < appendedRows + count) {
          kept = appendedSourceRows[c] = Arrays.copyOf(kept, Math.max(appendedRows + count, kept.length * 2));
        }
        // this chunk's source rows, written straight into the batch's (no array of the chunk's own)
        if (fromProbe[c]) {
          probeDeferred[ordinal[c]].composeInto(rows, count, kept, appendedRows);
        } else {
          System.arraycopy(rows, 0, kept, appendedRows, count);
        }
      } else if (source != null) {
        appendWithNulls(source, deferredRows(c, build, rows, count), count, appended[c], appendedRows);
      } else if (fromProbe[c] && unconverted(c) != null) {
        // A chunk of a selective join: just its rows from the scan's column, then appended.
        try (FieldVector chunk = unconverted(c).gather(rows, count, fields.get(c), allocator)) {
          ArrowCopy.appendAll(chunk, count, appended[c], appendedRows, scratch);
        }
      } else {
        ValueVector src = fromProbe[c] ? probeVector(probe, c) : build.get(ordinal[c]);
        ArrowCopy.append(src, rows, count, appended[c], appendedRows, scratch);
      }
    }
    appendedRows += count;
  }

  private FieldVector newVector(int c, int capacity, BufferAllocator allocator) {
    FieldVector v = fields.get(c).createVector(allocator);
    v.setInitialCapacity(Math.max(capacity, 1));
    v.allocateNew();
    return v;
  }

  /**
   * Appends {@code src[rows[i]]} (null where {@code rows[i] < 0}: a deferred column's outer-join padding) at
   * {@code dst[start + i]}: value by value, only where a coalesced batch mixes deferred and gathered chunks.
   */
  private static void appendWithNulls(ValueVector src, int[] rows, int count, FieldVector dst, int start) {
    synchronized (src) {
      for (int i = 0; i < count; i++) {
        int r = rows[i];
        if (r >= 0) {
          dst.copyFromSafe(r, start + i, src);
        } else if (dst instanceof BaseFixedWidthVector f) {
          f.setNull(start + i);
        } else {
          ((BaseVariableWidthVector) dst).setNull(start + i);
        }
      }
    }
  }

  /** The batch coalesced by {@link #append} since the last flush (the caller owns it); none is open after. */
  public ColumnarBatch flush() {
    ColumnVector[] out = new ColumnVector[appended.length];
    for (int c = 0; c < out.length; c++) {
      if (appendedSource[c] != null) {
        out[c] = new DeferredGatherVector(appendedSource[c], appendedSourceRows[c], appendedRows, fields.get(c),
            appendAllocator);
      } else {
        appended[c].setValueCount(appendedRows);
        out[c] = new RowReadArrowColumnVector(appended[c]);
      }
    }
    ColumnarBatch batch = new ColumnarBatch(out, appendedRows);
    appended = null;
    appendedSource = null;
    appendedSourceRows = null;
    appendAllocator = null;
    appendedRows = 0;
    return batch;
  }

  /** Releases a batch still being coalesced (a task that ends early). */
  @Override
  public void close() {
    if (appended != null) {
      for (FieldVector v : appended) {
        if (v != null) {
          v.close();
        }
      }
      appended = null;
      appendedSource = null;
      appendedSourceRows = null;
      appendAllocator = null;
      appendedRows = 0;
    }
  }
}
