/**
 * The Java snippets of README.md and docs/*.md, kept in compiled classes so that a snippet that
 * stops compiling breaks the build ({@code DocsSnippetsTest} checks each snippet appears here or in
 * another source file). Outside {@code dev.fencelock.sample}, so the sample app never scans them.
 */
@org.jspecify.annotations.NullMarked
package dev.fencelock.docs;
