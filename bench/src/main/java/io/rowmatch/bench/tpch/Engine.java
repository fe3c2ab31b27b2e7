package io.rowmatch.bench.tpch;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The engines the runner compares. Each is the same embedded Spark with different settings:
 * vanilla (the anchor), Rowmatch (our extension) and Apache DataFusion Comet (a peer, when asked for).
 */
public enum Engine {
  VANILLA("vanilla", "Rowmatch", null, Map.of()),
  ROWMATCH("rowmatch", "Rowmatch", "io.rowmatch.spark.RowmatchExtensions",
      Map.of("spark.sql.extensions", "io.rowmatch.spark.RowmatchExtensions")),
  COMET("comet", "Comet", "org.apache.spark.CometPlugin", cometSettings());

  /** Comet's off-heap pool: Comet allocates its native memory there. */
  public static final String COMET_OFF_HEAP_SIZE = "4g";

  private final String id;
  private final String operatorPrefix;
  private final String requiredClass;
  private final Map<String, String> settings;

  Engine(String id, String operatorPrefix, String requiredClass, Map<String, String> settings) {
    this.id = id;
    this.operatorPrefix = operatorPrefix;
    this.requiredClass = requiredClass;
    this.settings = settings;
  }

  public String id() {
    return id;
  }

  /** Operators of this engine's own start with this name ("Rowmatch" counted even for vanilla: must be 0). */
  public String operatorPrefix() {
    return operatorPrefix;
  }

  public Map<String, String> settings() {
    return settings;
  }

  /**
   * Fails unless the engine's entry class is loadable. Spark only logs a warning for a missing
   * {@code spark.sql.extensions} class and goes on as vanilla Spark; a benchmark must not.
   */
  public void checkAvailable() {
    if (requiredClass == null) {
      return;
    }
    try {
      Class.forName(requiredClass, false, Engine.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      String hint = this == ROWMATCH
          ? "build the Spark plugin (module spark-plugin, issue 5) so that it is on the classpath"
          : "give the Comet jar (org.apache.datafusion:comet-spark-spark4.1_2.13:1.2.0) with --comet-jar, or run"
              + " bench/tpch.sh, which fetches it when --engines names comet";
      throw new IllegalStateException("Engine '" + id + "' needs the class " + requiredClass
          + ", which is not on the classpath: " + hint + ". Refusing to run vanilla Spark under its name.", e);
    }
  }

  public static Engine parse(String id) {
    for (Engine engine : values()) {
      if (engine.id.equals(id.strip().toLowerCase(Locale.ROOT))) {
        return engine;
      }
    }
    throw new IllegalArgumentException("Unknown engine '" + id + "': use vanilla, rowmatch or comet");
  }

  private static Map<String, String> cometSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("spark.plugins", "org.apache.spark.CometPlugin");
    settings.put("spark.shuffle.manager", "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager");
    settings.put("spark.memory.offHeap.enabled", "true");
    settings.put("spark.memory.offHeap.size", COMET_OFF_HEAP_SIZE);
    settings.put("spark.comet.enabled", "true");
    settings.put("spark.comet.exec.enabled", "true");
    settings.put("spark.comet.shuffle.enabled", "true");
    return settings;
  }
}
