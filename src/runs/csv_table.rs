//! Every CSV file the commands write goes through [`CsvTable`]: the `csv` crate quotes
//! exactly the cells that need it (a comma, a quote or a line break), so a name or an
//! error message stays one cell and every row keeps the header's width.

/// A CSV table being built: the header, then one row at a time, lines ending in `\n`.
pub struct CsvTable {
    writer: csv::Writer<Vec<u8>>,
}

impl CsvTable {
    /// A table with these column names.
    pub fn new(header: &[&str]) -> CsvTable {
        let mut table = CsvTable {
            writer: csv::WriterBuilder::new()
                .terminator(csv::Terminator::Any(b'\n'))
                .from_writer(Vec::new()),
        };
        table.row(header);
        table
    }

    /// Appends one row; each cell is written as `Display` shows it.
    pub fn row<T: ToString>(&mut self, cells: &[T]) {
        let cells: Vec<String> = cells.iter().map(ToString::to_string).collect();
        self.writer.write_record(&cells).expect("writing to memory cannot fail");
    }

    /// The table's text.
    pub fn finish(self) -> String {
        let bytes = self.writer.into_inner().expect("writing to memory cannot fail");
        String::from_utf8(bytes).expect("the cells are strings")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_with_commas_quotes_or_line_breaks_stays_one_cell() {
        let mut table = CsvTable::new(&["player", "games"]);
        table.row(&["llm:m@a,b", "2"]);
        table.row(&["say \"hi\"\nthen", "3"]);
        table.row(&["plain", "4"]);
        assert_eq!(
            table.finish(),
            "player,games\n\"llm:m@a,b\",2\n\"say \"\"hi\"\"\nthen\",3\nplain,4\n"
        );
    }
}
