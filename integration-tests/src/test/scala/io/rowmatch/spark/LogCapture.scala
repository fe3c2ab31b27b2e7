package io.rowmatch.spark

import java.util.concurrent.ConcurrentLinkedQueue
import scala.jdk.CollectionConverters._

import org.apache.logging.log4j.LogManager
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.Property
import org.apache.logging.log4j.core.{LogEvent, LoggerContext}

/** The log lines ("LEVEL logger: message") that reach the root logger of this JVM while a block runs. */
object LogCapture {
  def apply[T](body: => T): (T, Seq[String]) = {
    val lines = new ConcurrentLinkedQueue[String]()
    val appender = new AbstractAppender("rowmatch-capture", null, null, true, Property.EMPTY_ARRAY) {
      override def append(event: LogEvent): Unit =
        lines.add(s"${event.getLevel} ${event.getLoggerName}: ${event.getMessage.getFormattedMessage}")
    }
    appender.start()
    val root = LogManager.getContext(false).asInstanceOf[LoggerContext].getRootLogger
    root.addAppender(appender)
    try (body, lines.asScala.toSeq) finally {
      root.removeAppender(appender)
      appender.stop()
    }
  }
}
