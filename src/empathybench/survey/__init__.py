"""The blind survey: answers from several sources shown as letters A–E, most/least votes."""
