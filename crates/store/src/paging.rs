//! Which page of a listing a query reads.

/// Validated `page` and `pageSize` of a listing (the API's `envelope::parse_paging` checks
/// them against the route's maximum).
#[derive(Clone, Copy, Debug)]
pub struct Paging {
    /// Page number from 1.
    pub page: i64,
    /// Items per page.
    pub page_size: i64,
}

impl Paging {
    /// `page` (from 1) of `page_size` rows, when the rows before it can be counted in an i64.
    pub fn new(page: i64, page_size: i64) -> Option<Self> {
        if page < 1 || page_size < 1 {
            return None;
        }
        page.checked_sub(1)?.checked_mul(page_size)?;
        Some(Self { page, page_size })
    }

    /// Rows to skip.
    pub fn offset(&self) -> i64 {
        // `new` checked that the product fits.
        (self.page - 1).saturating_mul(self.page_size)
    }

    /// The total of a listing whose page rows carry it (`(SELECT COUNT(*) …) AS total`):
    /// `first` is the first row's. An empty first page means 0; an empty later page says
    /// nothing, and `None` asks the caller to count.
    pub fn total_leido(self, first: Option<Option<i64>>) -> Option<i64> {
        match first {
            Some(total) => Some(total.unwrap_or_default()),
            None if self.page == 1 => Some(0),
            None => None,
        }
    }
}
