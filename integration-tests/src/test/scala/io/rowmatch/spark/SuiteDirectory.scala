package io.rowmatch.spark

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.scalatest.{BeforeAndAfterAll, Suite}

/** A temporary directory for a suite's files (`dir`), made before its tests and deleted, with all in it, after them. */
trait SuiteDirectory extends BeforeAndAfterAll { self: Suite =>

  /** The directory's name prefix. */
  protected def directoryPrefix: String

  protected var dir: File = _

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    dir = Files.createTempDirectory(directoryPrefix).toFile
  }

  override protected def afterAll(): Unit = {
    try FileUtils.deleteDirectory(dir) finally super.afterAll()
  }
}
