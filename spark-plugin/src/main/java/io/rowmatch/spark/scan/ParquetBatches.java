package io.rowmatch.spark.scan;

import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

import org.apache.hadoop.fs.Path;
import org.apache.parquet.VersionParser.ParsedVersion;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.execution.datasources.RecordReaderIterator;
import org.apache.spark.sql.execution.datasources.parquet.ParquetColumn;
import org.apache.spark.sql.execution.datasources.parquet.ParquetRowIndexUtil;
import org.apache.spark.sql.execution.datasources.parquet.SpecificParquetRecordReaderBase;
import org.apache.spark.sql.execution.datasources.parquet.VectorizedColumnReader;
import org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The batches of one Parquet file split, decoded by {@link ParquetChunkDecoder} where it reads the column chunk,
 * and by Spark's own column reader otherwise. It takes over a Spark vectorized reader that Spark's
 * {@code ParquetFileFormat} has opened and initialized (footer, row groups kept by the pushed filters and the
 * split's range, requested schema, partition and missing columns, the reused batch), and only replaces the
 * reading of the data columns' pages; so everything Spark decides about the file stays Spark's.
 *
 * <p>A row group that Parquet's column indexes filtered (only some pages, rows skipped) is read wholly by Spark's
 * column readers, which skip the same rows in every column. Spark keeps the reader's state private: it is read
 * through method handles, and if this Spark build lays it out differently ({@link #AVAILABLE} false) the file is
 * read by Spark's reader as it is.
 */
public final class ParquetBatches extends AbstractIterator<Object> implements Closeable {
  static final boolean AVAILABLE;
  private static final VarHandle ROW_READER;
  private static final VarHandle ROW_GROUPS;
  private static final VarHandle FILE_READER;
  private static final VarHandle TOTAL_ROWS;
  private static final VarHandle FILE_SCHEMA;
  private static final VarHandle PARQUET_COLUMN;
  private static final VarHandle WRITER_VERSION;
  private static final VarHandle FILE;
  private static final VarHandle CAPACITY;
  private static final VarHandle CONVERT_TZ;
  private static final VarHandle DATETIME_REBASE_MODE;
  private static final VarHandle DATETIME_REBASE_TZ;
  private static final VarHandle INT96_REBASE_MODE;
  private static final VarHandle INT96_REBASE_TZ;
  private static final MethodHandle SPARK_READ_BATCH;

  /** Column chunks read by the Rowmatch decoder and by Spark's reader (for tests and the benchmark's report). */
  private static final LongAdder CHUNKS_DECODED = new LongAdder();
  private static final LongAdder CHUNKS_READ_BY_SPARK = new LongAdder();

  /** Column chunks this JVM's scans decoded with Rowmatch's decoder so far. */
  public static long chunksDecoded() {
    return CHUNKS_DECODED.sum();
  }

  /** Column chunks of files this class read that Spark's column reader decoded (types or encodings it does not
   * take, row groups filtered by column indexes). */
  public static long chunksReadBySpark() {
    return CHUNKS_READ_BY_SPARK.sum();
  }

  static {
    VarHandle[] h = new VarHandle[14];
    MethodHandle read = null;
    boolean ok;
    try {
      MethodHandles.Lookup self = MethodHandles.lookup();
      h[0] = MethodHandles.privateLookupIn(RecordReaderIterator.class, self)
          .findVarHandle(RecordReaderIterator.class, "rowReader", org.apache.hadoop.mapreduce.RecordReader.class);
      Class<?> base = SpecificParquetRecordReaderBase.class;
      MethodHandles.Lookup b = MethodHandles.privateLookupIn(base, self);
      Class<?> groupsType = Class.forName(base.getName() + "$ParquetRowGroupReader");
      h[1] = b.findVarHandle(base, "reader", groupsType);
      Class<?> impl = Class.forName(base.getName() + "$ParquetRowGroupReaderImpl");
      h[2] = MethodHandles.privateLookupIn(impl, self).findVarHandle(impl, "reader", ParquetFileReader.class);
      h[3] = b.findVarHandle(base, "totalRowCount", long.class);
      h[4] = b.findVarHandle(base, "fileSchema", MessageType.class);
      h[5] = b.findVarHandle(base, "parquetColumn", ParquetColumn.class);
      h[6] = b.findVarHandle(base, "writerVersion", ParsedVersion.class);
      h[7] = b.findVarHandle(base, "file", Path.class);
      Class<VectorizedParquetRecordReader> v = VectorizedParquetRecordReader.class;
      MethodHandles.Lookup vl = MethodHandles.privateLookupIn(v, self);
      h[8] = vl.findVarHandle(v, "capacity", int.class);
      h[9] = vl.findVarHandle(v, "convertTz", ZoneId.class);
      h[10] = vl.findVarHandle(v, "datetimeRebaseMode", String.class);
      h[11] = vl.findVarHandle(v, "datetimeRebaseTz", String.class);
      h[12] = vl.findVarHandle(v, "int96RebaseMode", String.class);
      h[13] = vl.findVarHandle(v, "int96RebaseTz", String.class);
      read = MethodHandles.privateLookupIn(VectorizedColumnReader.class, self).findVirtual(VectorizedColumnReader.class,
          "readBatch", MethodType.methodType(void.class, int.class, WritableColumnVector.class,
              WritableColumnVector.class, WritableColumnVector.class));
      ok = true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      ok = false;
    }
    AVAILABLE = ok;
    ROW_READER = h[0];
    ROW_GROUPS = h[1];
    FILE_READER = h[2];
    TOTAL_ROWS = h[3];
    FILE_SCHEMA = h[4];
    PARQUET_COLUMN = h[5];
    WRITER_VERSION = h[6];
    FILE = h[7];
    CAPACITY = h[8];
    CONVERT_TZ = h[9];
    DATETIME_REBASE_MODE = h[10];
    DATETIME_REBASE_TZ = h[11];
    INT96_REBASE_MODE = h[12];
    INT96_REBASE_TZ = h[13];
    SPARK_READ_BATCH = read;
  }

  /**
   * {@code sparkBatches}, the iterator Spark's Parquet format returned for one file, read through this class when
   * it is Spark's vectorized reader returning batches of top-level columns; otherwise {@code sparkBatches} itself.
   */
  @SuppressWarnings("unchecked")
  public static <T> Iterator<T> over(Iterator<T> sparkBatches) {
    if (!AVAILABLE || !(sparkBatches instanceof RecordReaderIterator<?> records)
        || !(ROW_READER.get(records) instanceof VectorizedParquetRecordReader reader)) {
      return sparkBatches;
    }
    ParquetColumn root = (ParquetColumn) PARQUET_COLUMN.get(reader);
    List<ParquetColumn> columns = CollectionConverters.asJava(root.children());
    for (ParquetColumn c : columns) {
      if (!c.isPrimitive() || c.variantFileType().isDefined() || ParquetRowIndexUtil.isRowIndexColumn(c)) {
        return sparkBatches;
      }
    }
    if (!(ROW_GROUPS.get(reader) != null && FILE_READER.get(ROW_GROUPS.get(reader)) instanceof ParquetFileReader)) {
      return sparkBatches;
    }
    return (Iterator<T>) new ParquetBatches(records, reader, columns);
  }

  private final RecordReaderIterator<?> records;
  private final VectorizedParquetRecordReader reader;
  private final ColumnarBatch batch;
  private final int capacity;
  private final long totalRows;
  private final ColumnDescriptor[] descriptors; // null: missing from the file (nulls or its default, set by Spark)
  private final boolean[] required;
  private final int[] kinds; // ParquetChunkDecoder's kind, -1 when only Spark's reader takes the column's type
  private final Object[] chunkReaders;
  private final String file;
  private final ParquetFileReader fileReader;
  private long returned;
  private long loaded;
  private boolean ready;
  private boolean more;

  private ParquetBatches(RecordReaderIterator<?> records, VectorizedParquetRecordReader reader,
      List<ParquetColumn> columns) {
    this.records = records;
    this.reader = reader;
    this.batch = reader.resultBatch();
    this.capacity = (int) CAPACITY.get(reader);
    this.totalRows = (long) TOTAL_ROWS.get(reader);
    this.file = String.valueOf(FILE.get(reader));
    MessageType fileSchema = (MessageType) FILE_SCHEMA.get(reader);
    this.fileReader = (ParquetFileReader) FILE_READER.get(ROW_GROUPS.get(reader));
    boolean datetimeCorrected = "CORRECTED".equals(DATETIME_REBASE_MODE.get(reader));
    int n = columns.size();
    descriptors = new ColumnDescriptor[n];
    required = new boolean[n];
    kinds = new int[n];
    chunkReaders = new Object[n];
    Map<String, Set<Encoding>> encodings = chunkEncodings(fileReader);
    for (int i = 0; i < n; i++) {
      ParquetColumn c = columns.get(i);
      String name = c.path().head();
      if (c.path().size() != 1 || !fileSchema.containsField(name) || c.descriptor().isEmpty()) {
        continue;
      }
      ColumnDescriptor d = c.descriptor().get();
      descriptors[i] = d;
      required[i] = c.required();
      Set<Encoding> used = encodings.get(String.join(".", d.getPath()));
      // The type of the vector written (Spark allocates it from the column's read type).
      int kind = ParquetChunkDecoder.kindOf(d, batch.column(i).dataType(), datetimeCorrected);
      kinds[i] = used != null && ParquetChunkDecoder.readsEncodings(used) ? kind : -1;
    }
  }

  /** Per column path, the encodings its chunks use in every row group of the file (the footer's lists). */
  private static Map<String, Set<Encoding>> chunkEncodings(ParquetFileReader fileReader) {
    Map<String, Set<Encoding>> byPath = new HashMap<>();
    for (BlockMetaData block : fileReader.getFooter().getBlocks()) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        byPath.computeIfAbsent(chunk.getPath().toDotString(), k -> new java.util.HashSet<>())
            .addAll(chunk.getEncodings());
      }
    }
    return byPath;
  }

  @Override
  public boolean hasNext() {
    if (!ready) {
      try {
        more = nextBatch();
      } catch (IOException e) {
        throw new RuntimeException(e);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
      ready = true;
    }
    return more;
  }

  @Override
  public Object next() {
    if (!hasNext()) {
      throw new java.util.NoSuchElementException("no more batches in " + file);
    }
    ready = false;
    return batch;
  }

  private boolean nextBatch() throws Throwable {
    for (int i = 0; i < descriptors.length; i++) {
      ((WritableColumnVector) batch.column(i)).reset();
    }
    batch.setNumRows(0);
    if (returned >= totalRows) {
      return false;
    }
    if (returned == loaded) {
      startRowGroup();
    }
    int num = (int) Math.min(capacity, loaded - returned);
    for (int i = 0; i < descriptors.length; i++) {
      Object chunk = chunkReaders[i];
      WritableColumnVector vector = (WritableColumnVector) batch.column(i);
      if (chunk instanceof ParquetChunkDecoder ours) {
        ours.readBatch(num, vector);
      } else if (chunk != null) {
        SPARK_READ_BATCH.invoke((VectorizedColumnReader) chunk, num, vector, (WritableColumnVector) null,
            (WritableColumnVector) null);
      }
    }
    returned += num;
    batch.setNumRows(num);
    return true;
  }

  private void startRowGroup() throws IOException {
    PageReadStore pages = fileReader.readNextFilteredRowGroup(); // what Spark's row group reader calls
    if (pages == null) {
      throw new IOException("expecting more rows but reached the last row group of " + file + ": read " + returned
          + " of " + totalRows);
    }
    boolean filtered = pages.getRowIndexes().isPresent();
    for (int i = 0; i < descriptors.length; i++) {
      ColumnDescriptor d = descriptors[i];
      if (d == null) {
        chunkReaders[i] = null;
      } else if (!filtered && kinds[i] >= 0) {
        chunkReaders[i] = new ParquetChunkDecoder(d, kinds[i], pages.getPageReader(d), file);
        CHUNKS_DECODED.increment();
      } else {
        chunkReaders[i] = new VectorizedColumnReader(d, required[i], pages, (ZoneId) CONVERT_TZ.get(reader),
            (String) DATETIME_REBASE_MODE.get(reader), (String) DATETIME_REBASE_TZ.get(reader),
            (String) INT96_REBASE_MODE.get(reader), (String) INT96_REBASE_TZ.get(reader),
            (ParsedVersion) WRITER_VERSION.get(reader));
        CHUNKS_READ_BY_SPARK.increment();
      }
    }
    loaded += pages.getRowCount();
  }

  @Override
  public void close() {
    records.close();
  }
}
